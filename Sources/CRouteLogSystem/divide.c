// Stored integers back to doubles, many at a time: the load path's last step
// (format-spec.md, "Quantization"). Each result is the IEEE quotient of the integer,
// converted to the nearest double, and the divisor, exactly what one scalar division
// gives; vector division only does several of them at once. The divider is the
// bottleneck of building points (eight quotients a point, one every few cycles), so the
// width of the vectors is what this file is for.
#include "CRouteLogSystem.h"
#include "processor_features.h"

static void divide_portable(const int64_t *values, size_t count, double divisor, double *out) {
    // Compilers vectorize this loop for the baseline of the target (SSE2 on x86-64,
    // NEON on arm64): two quotients per instruction.
    for (size_t i = 0; i < count; i++) out[i] = (double)values[i] / divisor;
}

#if defined(__x86_64__)
#include <immintrin.h>

// Four quotients per instruction. AVX2 has no instruction that converts four 64-bit
// integers, so each is converted alone (the scalar conversion, same rounding).
__attribute__((target("avx2")))
static void divide_avx2(const int64_t *values, size_t count, double divisor, double *out) {
    const __m256d d = _mm256_set1_pd(divisor);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        __m256d x = _mm256_set_pd((double)values[i + 3], (double)values[i + 2],
                                  (double)values[i + 1], (double)values[i]);
        _mm256_storeu_pd(out + i, _mm256_div_pd(x, d));
    }
    for (; i < count; i++) out[i] = (double)values[i] / divisor;
}

void routelog_divide_integers(const int64_t *values, size_t count, double divisor, double *out) {
    if (routelog_has_avx2()) divide_avx2(values, count, divisor, out);
    else divide_portable(values, count, divisor, out);
}
int routelog_divide_is_wide(void) { return routelog_has_avx2(); }
#else
void routelog_divide_integers(const int64_t *values, size_t count, double divisor, double *out) {
    divide_portable(values, count, divisor, out);
}
int routelog_divide_is_wide(void) { return 0; }
#endif

void routelog_divide_integers_portable(const int64_t *values, size_t count, double divisor, double *out) {
    divide_portable(values, count, divisor, out);
}
