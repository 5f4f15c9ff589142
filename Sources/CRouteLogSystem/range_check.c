// A load's check that every point's coordinates and time, and every value of its
// optional columns, are ones a writer can have stored (Codec/V2/PointBlockV2.swift,
// checkRanges and checkStoredLimits): a block that passes every other check but holds a
// latitude past 90 degrees, or an altitude past 10,000 km, is still damage. Every point of every
// load goes through it, so it looks at many points with no branch per point (with AVX2,
// four at a time) and finds which point is out of range only in a block that has one.
#include "CRouteLogSystem.h"
#include "processor_features.h"

// 1 when v is outside -limit...limit: v + limit, as unsigned, past 2 × limit.
static inline int outside(int64_t v, uint64_t limit) { return (uint64_t)v + limit > 2 * limit; }

static size_t first_scalar(const int64_t *lat, const int64_t *lon, const int64_t *time, size_t from, size_t count,
                           const routelog_point_ranges *r) {
    for (size_t i = from; i < count; i++) {
        int64_t t = time ? time[i] : 0;
        if (outside(lat[i], r->latitude) | outside(lon[i], r->longitude) | (t < 0) | (t > r->latest_time)) return i;
    }
    return count;
}

// Blocks of this many points with no branch inside; a block with a point out of range
// is looked at again one point at a time.
enum { block_points = 64 };

static size_t first_portable(const int64_t *lat, const int64_t *lon, const int64_t *time, size_t count,
                             const routelog_point_ranges *r) {
    size_t from = 0;
    for (; from + block_points <= count; from += block_points) {
        int bad = 0;
        for (size_t i = from; i < from + block_points; i++) {
            int64_t t = time ? time[i] : 0;
            bad |= outside(lat[i], r->latitude) | outside(lon[i], r->longitude) | (t < 0) | (t > r->latest_time);
        }
        if (bad) return first_scalar(lat, lon, time, from, from + block_points, r);
    }
    return first_scalar(lat, lon, time, from, count, r);
}

// The optional columns' check: the first value outside low...high, or count.
static size_t first_value_scalar(const int64_t *v, size_t from, size_t count, int64_t low, int64_t high) {
    for (size_t i = from; i < count; i++) {
        if (v[i] < low || v[i] > high) return i;
    }
    return count;
}

static size_t first_value_portable(const int64_t *v, size_t count, int64_t low, int64_t high) {
    size_t from = 0;
    for (; from + block_points <= count; from += block_points) {
        int bad = 0;
        for (size_t i = from; i < from + block_points; i++) bad |= (v[i] < low) | (v[i] > high);
        if (bad) return first_value_scalar(v, from, from + block_points, low, high);
    }
    return first_value_scalar(v, from, count, low, high);
}

size_t routelog_first_value_outside_portable(const int64_t *values, size_t count, int64_t low, int64_t high) {
    return first_value_portable(values, count, low, high);
}

size_t routelog_first_point_out_of_range_portable(const int64_t *lat, const int64_t *lon, const int64_t *time,
                                                  size_t count, const routelog_point_ranges *ranges) {
    return first_portable(lat, lon, time, count, ranges);
}

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2")))
static size_t first_avx2(const int64_t *lat, const int64_t *lon, const int64_t *time, size_t count,
                         const routelog_point_ranges *r) {
    // No times stand for times of 0, out of range only when no time is in range at all.
    if (!time && r->latest_time < 0) return 0;
    // Signed comparisons of v + limit against 2 × limit, both moved by 2^63: the unsigned
    // comparison of `outside`.
    const __m256i flip = _mm256_set1_epi64x((long long)(1ULL << 63));
    const __m256i lat_limit = _mm256_set1_epi64x((long long)r->latitude),
                  lat_span = _mm256_xor_si256(_mm256_set1_epi64x((long long)(2 * r->latitude)), flip),
                  lon_limit = _mm256_set1_epi64x((long long)r->longitude),
                  lon_span = _mm256_xor_si256(_mm256_set1_epi64x((long long)(2 * r->longitude)), flip),
                  latest = _mm256_set1_epi64x(r->latest_time), zero = _mm256_setzero_si256();
    size_t from = 0;
    for (; from + block_points <= count; from += block_points) {
        __m256i bad = _mm256_setzero_si256();
        for (size_t i = from; i < from + block_points; i += 4) {
            __m256i a = _mm256_xor_si256(_mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(lat + i)), lat_limit), flip);
            __m256i o = _mm256_xor_si256(_mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(lon + i)), lon_limit), flip);
            bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(a, lat_span), _mm256_cmpgt_epi64(o, lon_span)));
            if (time) {
                __m256i t = _mm256_loadu_si256((const __m256i *)(time + i));
                bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(zero, t), _mm256_cmpgt_epi64(t, latest)));
            }
        }
        if (!_mm256_testz_si256(bad, bad)) return first_scalar(lat, lon, time, from, from + block_points, r);
    }
    return first_scalar(lat, lon, time, from, count, r);
}

size_t routelog_first_point_out_of_range(const int64_t *lat, const int64_t *lon, const int64_t *time, size_t count,
                                         const routelog_point_ranges *ranges) {
    return routelog_has_avx2() ? first_avx2(lat, lon, time, count, ranges)
                               : first_portable(lat, lon, time, count, ranges);
}

// A value is outside when v - low, as unsigned, passes high - low: one signed comparison
// of both moved by 2^63 (as `outside` above). Sixteen values a step, in four
// accumulators.
__attribute__((target("avx2")))
static size_t first_value_avx2(const int64_t *v, size_t count, int64_t low, int64_t high) {
    const __m256i moved_low = _mm256_set1_epi64x((long long)((uint64_t)low - (1ULL << 63))),
                  span = _mm256_set1_epi64x((long long)(((uint64_t)high - (uint64_t)low) ^ (1ULL << 63)));
    size_t from = 0;
    for (; from + block_points <= count; from += block_points) {
        __m256i b0 = _mm256_setzero_si256(), b1 = b0, b2 = b0, b3 = b0;
        for (size_t i = from; i < from + block_points; i += 16) {
            // v - (low - 2^63) is (v - low) ^ 2^63: the move folded into the subtraction.
            b0 = _mm256_or_si256(b0, _mm256_cmpgt_epi64(_mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(v + i)), moved_low), span));
            b1 = _mm256_or_si256(b1, _mm256_cmpgt_epi64(_mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(v + i + 4)), moved_low), span));
            b2 = _mm256_or_si256(b2, _mm256_cmpgt_epi64(_mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(v + i + 8)), moved_low), span));
            b3 = _mm256_or_si256(b3, _mm256_cmpgt_epi64(_mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(v + i + 12)), moved_low), span));
        }
        __m256i bad = _mm256_or_si256(_mm256_or_si256(b0, b1), _mm256_or_si256(b2, b3));
        if (!_mm256_testz_si256(bad, bad)) return first_value_scalar(v, from, from + block_points, low, high);
    }
    return first_value_scalar(v, from, count, low, high);
}

size_t routelog_first_value_outside(const int64_t *values, size_t count, int64_t low, int64_t high) {
    return routelog_has_avx2() ? first_value_avx2(values, count, low, high)
                               : first_value_portable(values, count, low, high);
}
#else
size_t routelog_first_value_outside(const int64_t *values, size_t count, int64_t low, int64_t high) {
    return first_value_portable(values, count, low, high);
}

size_t routelog_first_point_out_of_range(const int64_t *lat, const int64_t *lon, const int64_t *time, size_t count,
                                         const routelog_point_ranges *ranges) {
    return first_portable(lat, lon, time, count, ranges);
}
#endif
