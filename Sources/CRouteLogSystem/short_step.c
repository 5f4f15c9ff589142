// The lengths of a route's steps, as a save measures them for its distance and moving
// time: every step of every route, so the width of the vectors is what this file is
// for. A step is short (both differences at most 0.02 degree) in every real track; the
// caller measures the others. The AVX2 path evaluates the same polynomials with the
// same roundings four steps at a time: the lengths are the same bits on every processor.
#include "CRouteLogSystem.h"
#include "processor_features.h"

#pragma clang fp contract(off)

static const double short_step = 0.02;

static inline double step_length(const double *lat, const double *lon, size_t i) {
    double lat_delta = lat[i] - lat[i - 1], lon_delta = lon[i] - lon[i - 1], mid = (lat[i - 1] + lat[i]) / 2;
    if (__builtin_fabs(lat_delta) <= short_step && __builtin_fabs(lon_delta) <= short_step && __builtin_fabs(mid) <= 90)
        return routelog_short_step_length(lat_delta, lon_delta, mid);
    return -1;
}

static void lengths_portable(const double *lat, const double *lon, size_t from, size_t count, double *lengths) {
    for (size_t i = from; i < count; i++) lengths[i] = step_length(lat, lon, i);
}

void routelog_short_step_lengths_portable(const double *lat, const double *lon, size_t count, double *lengths) {
    lengths_portable(lat, lon, 1, count, lengths);
}

#if defined(__x86_64__)
#include <immintrin.h>

static const double lat_terms[ROUTELOG_SHORT_STEP_TERM_COUNT] = {ROUTELOG_SHORT_STEP_LATITUDE_TERMS};
static const double lon_terms[ROUTELOG_SHORT_STEP_TERM_COUNT] = {ROUTELOG_SHORT_STEP_LONGITUDE_TERMS};

// Steps i...i + 3: the scalar path's operations, lane by lane; -1 where a step is not
// short.
__attribute__((target("avx2")))
static inline void four_lengths(const double *lat, const double *lon, size_t i, double *lengths) {
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    __m256d lat_a = _mm256_loadu_pd(lat + i - 1), lat_b = _mm256_loadu_pd(lat + i);
    __m256d lon_a = _mm256_loadu_pd(lon + i - 1), lon_b = _mm256_loadu_pd(lon + i);
    __m256d lat_delta = _mm256_sub_pd(lat_b, lat_a), lon_delta = _mm256_sub_pd(lon_b, lon_a);
    // Halving is exact: a multiplication by 0.5 is the division by 2 of the scalar path.
    __m256d mid = _mm256_mul_pd(_mm256_add_pd(lat_a, lat_b), _mm256_set1_pd(0.5));
    __m256d phi = _mm256_mul_pd(mid, _mm256_set1_pd(3.14159265358979323846 / 180.0)), t = _mm256_mul_pd(phi, phi);
    __m256d a = _mm256_set1_pd(lat_terms[0]), b = _mm256_set1_pd(lon_terms[0]);
    for (int k = 1; k < ROUTELOG_SHORT_STEP_TERM_COUNT; k++) {
        a = _mm256_add_pd(_mm256_mul_pd(a, t), _mm256_set1_pd(lat_terms[k]));
        b = _mm256_add_pd(_mm256_mul_pd(b, t), _mm256_set1_pd(lon_terms[k]));
    }
    __m256d north = _mm256_mul_pd(a, lat_delta), east = _mm256_mul_pd(b, lon_delta);
    __m256d length = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(north, north), _mm256_mul_pd(east, east)));
    const __m256d limit = _mm256_set1_pd(short_step);
    __m256d is_short = _mm256_and_pd(
        _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(lat_delta, magnitude), limit, _CMP_LE_OQ),
                      _mm256_cmp_pd(_mm256_and_pd(lon_delta, magnitude), limit, _CMP_LE_OQ)),
        _mm256_cmp_pd(_mm256_and_pd(mid, magnitude), _mm256_set1_pd(90), _CMP_LE_OQ));
    _mm256_storeu_pd(lengths + i, _mm256_blendv_pd(_mm256_set1_pd(-1), length, is_short));
}

__attribute__((target("avx2")))
static void lengths_avx2(const double *lat, const double *lon, size_t count, double *lengths) {
    size_t i = 1;
    for (; i + 4 <= count; i += 4) four_lengths(lat, lon, i, lengths);
    lengths_portable(lat, lon, i, count, lengths);
}

void routelog_short_step_lengths(const double *lat, const double *lon, size_t count, double *lengths) {
    if (routelog_has_avx2()) lengths_avx2(lat, lon, count, lengths);
    else lengths_portable(lat, lon, 1, count, lengths);
}
int routelog_short_step_lengths_is_wide(void) { return routelog_has_avx2(); }
#else
void routelog_short_step_lengths(const double *lat, const double *lon, size_t count, double *lengths) {
    lengths_portable(lat, lon, 1, count, lengths);
}
int routelog_short_step_lengths_is_wide(void) { return 0; }
#endif
