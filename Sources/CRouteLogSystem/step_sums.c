// A route's distance and moving time from its step lengths (routelog_short_step_lengths'
// output), as a save measures them: every step of every route. The two sums are added
// step by step in the order of the steps, as one loop over them adds them; the AVX2 path
// only works out four steps' terms at once and adds them one after another, distance
// and moving time side by side in one 128-bit addition (two IEEE additions, each the
// scalar one). The sums and the lengths left are the same bits on every processor.
#include <string.h>

#include "CRouteLogSystem.h"
#include "processor_features.h"

#pragma clang fp contract(off)

static const uint64_t nan_bits = 0x7FF8000000000000ull;  // Swift's Double.nan

static size_t sum_portable(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                           double *distance, double *moving) {
    double nan, d = *distance, m = *moving;
    memcpy(&nan, &nan_bits, sizeof nan);
    size_t i = from;
    for (; i < to; i++) {
        double length = lengths[i];
        if (length < 0) break;
        double seconds = times[i] - times[i - 1];
        int finite = __builtin_isfinite(length);
        lengths[i] = finite ? length : nan;
        d += finite ? length : 0.0;
        m += finite && seconds > 0 && length >= minimum_speed * seconds ? seconds : 0.0;
    }
    *distance = d, *moving = m;
    return i;
}

size_t routelog_sum_steps_portable(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                                   double *distance, double *moving) {
    return sum_portable(times, lengths, from, to, minimum_speed, distance, moving);
}

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2")))
static size_t sum_avx2(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                       double *distance, double *moving) {
    const __m256d zero = _mm256_setzero_pd(), infinity = _mm256_set1_pd(__builtin_inf()),
                  speed = _mm256_set1_pd(minimum_speed),
                  magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll)),
                  nan = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)nan_bits));
    __m128d sums = _mm_set_pd(*moving, *distance);  // lane 0 the distance, lane 1 the moving time
    size_t i = from;
    for (; i + 4 <= to; i += 4) {
        __m256d length = _mm256_loadu_pd(lengths + i);
        // A step the caller measures: the scalar loop stops at it.
        if (_mm256_movemask_pd(_mm256_cmp_pd(length, zero, _CMP_LT_OQ)) != 0) break;
        __m256d seconds = _mm256_sub_pd(_mm256_loadu_pd(times + i), _mm256_loadu_pd(times + i - 1));
        __m256d finite = _mm256_cmp_pd(_mm256_and_pd(length, magnitude), infinity, _CMP_LT_OQ);
        __m256d moved = _mm256_and_pd(_mm256_and_pd(finite, _mm256_cmp_pd(seconds, zero, _CMP_GT_OQ)),
                                      _mm256_cmp_pd(length, _mm256_mul_pd(speed, seconds), _CMP_GE_OQ));
        _mm256_storeu_pd(lengths + i, _mm256_blendv_pd(nan, length, finite));
        // Each step's (distance, moving) terms, +0 where the scalar loop adds +0, then
        // added to the sums in the steps' order: [t0 m0 t2 m2] and [t1 m1 t3 m3].
        __m256d travelled = _mm256_and_pd(length, finite), counted = _mm256_and_pd(seconds, moved);
        __m256d even = _mm256_unpacklo_pd(travelled, counted), odd = _mm256_unpackhi_pd(travelled, counted);
        sums = _mm_add_pd(sums, _mm256_castpd256_pd128(even));
        sums = _mm_add_pd(sums, _mm256_castpd256_pd128(odd));
        sums = _mm_add_pd(sums, _mm256_extractf128_pd(even, 1));
        sums = _mm_add_pd(sums, _mm256_extractf128_pd(odd, 1));
    }
    _mm_storel_pd(distance, sums);
    _mm_storeh_pd(moving, sums);
    return sum_portable(times, lengths, i, to, minimum_speed, distance, moving);
}

size_t routelog_sum_steps(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                          double *distance, double *moving) {
    if (routelog_has_avx2()) return sum_avx2(times, lengths, from, to, minimum_speed, distance, moving);
    return sum_portable(times, lengths, from, to, minimum_speed, distance, moving);
}
#else
size_t routelog_sum_steps(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                          double *distance, double *moving) {
    return sum_portable(times, lengths, from, to, minimum_speed, distance, moving);
}
#endif
