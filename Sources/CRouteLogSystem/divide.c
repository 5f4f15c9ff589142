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

// The same quotients with no divider at all: the divider takes about eight cycles for
// four quotients, a multiply-add one cycle for eight. With y = 1/d correctly rounded
// (one division, for the whole call), q0 = x*y is within about an ulp and a half of x/d;
// one step q1 = q0 + (x - q0*d)*y (the remainder exact in a fused multiply-add) makes it
// faithful, within an ulp; and the same step again from a faithful quotient gives the
// correctly rounded one (Markstein's theorem, the basis of the division sequences of
// processors without a divider). Conversion is exact below 2^51 (the integer placed in
// the significand of 2^52 + 2^51, which is then subtracted); a batch with a value
// beyond goes the scalar way. DivideIntegersTests checks every quotient against the
// divider, tools/check-divide.c every stored latitude and longitude.
__attribute__((target("avx2,fma")))
static void divide_fma(const int64_t *values, size_t count, double divisor, double *out) {
    const __m256d d = _mm256_set1_pd(divisor), y = _mm256_set1_pd(1.0 / divisor);
    const __m256i magic_bits = _mm256_set1_epi64x(0x4338000000000000LL), half_range = _mm256_set1_epi64x(1LL << 51),
                  beyond = _mm256_set1_epi64x((long long)~((1ULL << 52) - 1));
    const __m256d magic = _mm256_castsi256_pd(magic_bits);
    size_t i = 0;
    // Batches of 32, held in registers until the batch's range is known: one branch for
    // 32 values (a branch per four cost half the loop's time), and a batch with a value
    // out of the exact range goes the scalar way before anything of it is stored, so
    // that values and out may be the same memory.
    for (; i + 32 <= count; i += 32) {
        __m256i out_of_range = _mm256_setzero_si256();
        __m256d q[8];
        for (int g = 0; g < 8; g++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(values + i + 4 * g));
            // v + 2^51 below 2^52 (unsigned) exactly when -2^51 <= v < 2^51.
            out_of_range = _mm256_or_si256(out_of_range, _mm256_add_epi64(v, half_range));
            __m256d x = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(v, magic_bits)), magic);
            __m256d r = _mm256_mul_pd(x, y);
            r = _mm256_fmadd_pd(_mm256_fnmadd_pd(r, d, x), y, r);
            q[g] = _mm256_fmadd_pd(_mm256_fnmadd_pd(r, d, x), y, r);
        }
        if (__builtin_expect(!_mm256_testz_si256(out_of_range, beyond), 0)) {
            for (size_t j = i; j < i + 32; j++) out[j] = (double)values[j] / divisor;
            continue;
        }
        for (int g = 0; g < 8; g++) _mm256_storeu_pd(out + i + 4 * g, q[g]);
    }
    for (; i < count; i++) out[i] = (double)values[i] / divisor;
}

// Calls the multiply-add path serves: divisors of magnitude 2^-60 to 2^60, so that no
// quotient of an integer, nor any step towards it, overflows or comes near the bottom of
// the normal range (the format's scales are 1 to 10^7); and rounding to nearest, the
// mode the refinement is correct in (an app that sets another rounding mode gets what
// the divider gives in that mode). The mode is read from MXCSR, whose rounding bits
// (13 and 14, 0 for nearest) govern the vector and scalar arithmetic both: a read of a
// few cycles, where fegetround() cost a fifth of a 256-value call.
static int fma_serves(double divisor) {
    double m = divisor < 0 ? -divisor : divisor;
    return m >= 0x1p-60 && m <= 0x1p60 && (_mm_getcsr() & 0x6000) == 0;
}
void routelog_divide_integers(const int64_t *values, size_t count, double divisor, double *out) {
    if (routelog_has_avx2() && routelog_has_fma() && fma_serves(divisor)) divide_fma(values, count, divisor, out);
    else if (routelog_has_avx2()) divide_avx2(values, count, divisor, out);
    else divide_portable(values, count, divisor, out);
}
int routelog_divide_is_wide(void) { return routelog_has_avx2(); }
int routelog_divide_multiplies(void) { return routelog_has_avx2() && routelog_has_fma(); }
#else
void routelog_divide_integers(const int64_t *values, size_t count, double divisor, double *out) {
    divide_portable(values, count, divisor, out);
}
int routelog_divide_is_wide(void) { return 0; }
int routelog_divide_multiplies(void) { return 0; }
#endif

void routelog_divide_integers_portable(const int64_t *values, size_t count, double divisor, double *out) {
    divide_portable(values, count, divisor, out);
}
