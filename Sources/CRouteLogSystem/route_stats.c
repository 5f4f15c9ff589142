// The stats of a save's derived fields (format-spec.md, "Derived fields", stats) that
// read every point's altitude and speed: the climb and descent with a hysteresis, and the
// largest reported speed. Each gives the bits the plain loop over the values gives; the
// AVX2 paths only skip what provably changes nothing (the climb) or keep four running
// maxima side by side (the speed).
#include <string.h>

#include "CRouteLogSystem.h"
#include "processor_features.h"

#pragma clang fp contract(off)

static inline int is_absent(double v, uint64_t absent_bits) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == absent_bits;
}

// One altitude, as RouteStats' ElevationHysteresis adds it.
static inline void climb_one(routelog_climb *c, double altitude, double threshold) {
    if (!c->started) {
        c->reference = altitude, c->started = 1;
        return;
    }
    if (!__builtin_isfinite(altitude)) return;
    double change = altitude - c->reference;
    if ((c->direction == 1 && change > 0) || (c->direction != 1 && change >= threshold)) {
        c->climbed += change, c->reference = altitude, c->direction = 1;
    } else if ((c->direction == -1 && change < 0) || (c->direction != -1 && change <= -threshold)) {
        c->descended -= change, c->reference = altitude, c->direction = -1;
    }
}

static void climb_portable(routelog_climb *c, const double *altitudes, size_t from, size_t to, double threshold,
                           uint64_t absent_bits) {
    for (size_t i = from; i < to; i++) {
        if (!is_absent(altitudes[i], absent_bits)) climb_one(c, altitudes[i], threshold);
    }
}

void routelog_climb_add_portable(routelog_climb *climb, const double *altitudes, size_t from, size_t to,
                                 double threshold, uint64_t absent_bits) {
    climb_portable(climb, altitudes, from, to, threshold, absent_bits);
}

// The largest finite value and start, as a loop of `largest = value >= largest ? value :
// largest` (Swift.max) over the values in order gives it.
static double largest_plain(const double *values, size_t count, double start) {
    double largest = start;
    for (size_t i = 0; i < count; i++) {
        if (__builtin_isfinite(values[i]) && values[i] >= largest) largest = values[i];
    }
    return largest;
}

static inline double swift_max(double x, double y) { return y >= x ? y : x; }

// Four running maxima, lane l over values l, l + 4, ... (the tail in lane 0), merged at
// the end. Equal values have the same bits, whichever the maxima keep, except 0 and -0:
// when the largest is a zero, the plain loop says which (the later of equal values wins).
static double largest_merged(const double m[4], const double *values, size_t count, double start) {
    double largest = swift_max(swift_max(m[0], m[1]), swift_max(m[2], m[3]));
    return largest == 0 ? largest_plain(values, count, start) : largest;
}

static double largest_portable(const double *values, size_t count, double start) {
    double m[4] = {start, start, start, start};
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        for (int l = 0; l < 4; l++) {
            if (__builtin_isfinite(values[i + l])) m[l] = swift_max(m[l], values[i + l]);
        }
    }
    for (; i < count; i++) {
        if (__builtin_isfinite(values[i])) m[0] = swift_max(m[0], values[i]);
    }
    return largest_merged(m, values, count, start);
}

double routelog_largest_finite_portable(const double *values, size_t count, double start) {
    return largest_portable(values, count, start);
}

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2")))
static inline __m256d finite4(__m256d v) {
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    return _mm256_cmp_pd(_mm256_and_pd(v, magnitude), _mm256_set1_pd(__builtin_inf()), _CMP_LT_OQ);
}

// Between two changes of the hysteresis, most altitudes change nothing: four of them
// that are all absent, not finite, or within the threshold of the reference (in the
// direction followed: the comparisons of climb_one, the one of the other direction
// given a NaN bound, which no comparison passes) are skipped at once. A block with one
// that climbs or descends goes the scalar way.
__attribute__((target("avx2")))
static void climb_avx2(routelog_climb *c, const double *altitudes, size_t from, size_t to, double threshold,
                       uint64_t absent_bits) {
    size_t i = from;
    while (i < to && !c->started) {
        if (!is_absent(altitudes[i], absent_bits)) climb_one(c, altitudes[i], threshold);
        i++;
    }
    const double none = __builtin_nan("");
    for (;;) {
        const __m256d reference = _mm256_set1_pd(c->reference),
                      above = _mm256_set1_pd(c->direction == 1 ? 0 : none),
                      at_least = _mm256_set1_pd(c->direction != 1 ? threshold : none),
                      below = _mm256_set1_pd(c->direction == -1 ? 0 : none),
                      at_most = _mm256_set1_pd(c->direction != -1 ? -threshold : none);
        for (; i + 4 <= to; i += 4) {
            __m256d v = _mm256_loadu_pd(altitudes + i), change = _mm256_sub_pd(v, reference);
            __m256d climbs = _mm256_or_pd(_mm256_cmp_pd(change, above, _CMP_GT_OQ), _mm256_cmp_pd(change, at_least, _CMP_GE_OQ));
            __m256d descends = _mm256_or_pd(_mm256_cmp_pd(change, below, _CMP_LT_OQ), _mm256_cmp_pd(change, at_most, _CMP_LE_OQ));
            if (_mm256_movemask_pd(_mm256_and_pd(finite4(v), _mm256_or_pd(climbs, descends))) != 0) break;
        }
        if (i + 4 > to) break;
        climb_portable(c, altitudes, i, i + 4, threshold, absent_bits);
        i += 4;
    }
    climb_portable(c, altitudes, i, to, threshold, absent_bits);
}

void routelog_climb_add(routelog_climb *climb, const double *altitudes, size_t from, size_t to, double threshold,
                        uint64_t absent_bits) {
    if (routelog_has_avx2()) {
        climb_avx2(climb, altitudes, from, to, threshold, absent_bits);
    } else {
        climb_portable(climb, altitudes, from, to, threshold, absent_bits);
    }
}

__attribute__((target("avx2")))
static double largest_avx2(const double *values, size_t count, double start) {
    __m256d m = _mm256_set1_pd(start);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        __m256d v = _mm256_loadu_pd(values + i);
        m = _mm256_blendv_pd(m, v, _mm256_and_pd(finite4(v), _mm256_cmp_pd(v, m, _CMP_GE_OQ)));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, m);
    for (; i < count; i++) {
        if (__builtin_isfinite(values[i])) lanes[0] = swift_max(lanes[0], values[i]);
    }
    return largest_merged(lanes, values, count, start);
}

double routelog_largest_finite(const double *values, size_t count, double start) {
    return routelog_has_avx2() ? largest_avx2(values, count, start) : largest_portable(values, count, start);
}
#else
void routelog_climb_add(routelog_climb *climb, const double *altitudes, size_t from, size_t to, double threshold,
                        uint64_t absent_bits) {
    climb_portable(climb, altitudes, from, to, threshold, absent_bits);
}

double routelog_largest_finite(const double *values, size_t count, double start) {
    return largest_portable(values, count, start);
}
#endif
