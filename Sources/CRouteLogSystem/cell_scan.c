// The grid cells of a save's derived fields (format-spec.md, "Derived fields", cells):
// a track stays in one cell for many points, so the cells are found by skipping the
// points inside the last point's cell, eight at a time with AVX2, and working out a cell
// only where the track leaves it.
#include "CRouteLogSystem.h"
#include "processor_features.h"

// low <= v < high, as one unsigned comparison: v - low is below high - low exactly then
// (low <= high; v - low wraps past high - low when v is below low).
static inline int inside(int64_t v, int64_t low, int64_t high) {
    return (uint64_t)v - (uint64_t)low < (uint64_t)high - (uint64_t)low;
}

static size_t first_outside_scalar(const int64_t *lat, const int64_t *lon, size_t from, size_t count, int64_t lat_low,
                                   int64_t lat_high, int64_t lon_low, int64_t lon_high) {
    for (size_t i = from; i < count; i++) {
        if (!(inside(lat[i], lat_low, lat_high) && inside(lon[i], lon_low, lon_high))) return i;
    }
    return count;
}

size_t routelog_first_outside_cell_portable(const int64_t *lat, const int64_t *lon, size_t from, size_t count,
                                            int64_t lat_low, int64_t lat_high, int64_t lon_low, int64_t lon_high) {
    if (lat_low > lat_high || lon_low > lon_high) return from < count ? from : count;
    return first_outside_scalar(lat, lon, from, count, lat_low, lat_high, lon_low, lon_high);
}

#if defined(__x86_64__)
#include <immintrin.h>

// The unsigned comparison as a signed one of both sides moved by 2^63: v - (low - 2^63)
// is (v - low) ^ 2^63, the move folded into the subtraction.
__attribute__((target("avx2")))
static inline __m256i inside4(const int64_t *v, __m256i moved_low, __m256i moved_span) {
    return _mm256_cmpgt_epi64(moved_span, _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)v), moved_low));
}

__attribute__((target("avx2")))
static size_t first_outside_avx2(const int64_t *lat, const int64_t *lon, size_t from, size_t count, int64_t lat_low,
                                 int64_t lat_high, int64_t lon_low, int64_t lon_high) {
    const uint64_t move = 1ULL << 63;
    const __m256i lat_moved_low = _mm256_set1_epi64x((long long)((uint64_t)lat_low - move)),
                  lat_span = _mm256_set1_epi64x((long long)(((uint64_t)lat_high - (uint64_t)lat_low) ^ move)),
                  lon_moved_low = _mm256_set1_epi64x((long long)((uint64_t)lon_low - move)),
                  lon_span = _mm256_set1_epi64x((long long)(((uint64_t)lon_high - (uint64_t)lon_low) ^ move));
    size_t i = from;
    for (; i + 8 <= count; i += 8) {
        __m256i in = _mm256_and_si256(
            _mm256_and_si256(inside4(lat + i, lat_moved_low, lat_span), inside4(lon + i, lon_moved_low, lon_span)),
            _mm256_and_si256(inside4(lat + i + 4, lat_moved_low, lat_span), inside4(lon + i + 4, lon_moved_low, lon_span)));
        if (_mm256_movemask_pd(_mm256_castsi256_pd(in)) != 15) break;  // one of the eight left: found below
    }
    return first_outside_scalar(lat, lon, i, count, lat_low, lat_high, lon_low, lon_high);
}

size_t routelog_first_outside_cell(const int64_t *lat, const int64_t *lon, size_t from, size_t count, int64_t lat_low,
                                   int64_t lat_high, int64_t lon_low, int64_t lon_high) {
    if (lat_low > lat_high || lon_low > lon_high) return from < count ? from : count;
    if (routelog_has_avx2()) return first_outside_avx2(lat, lon, from, count, lat_low, lat_high, lon_low, lon_high);
    return first_outside_scalar(lat, lon, from, count, lat_low, lat_high, lon_low, lon_high);
}
#else
size_t routelog_first_outside_cell(const int64_t *lat, const int64_t *lon, size_t from, size_t count, int64_t lat_low,
                                   int64_t lat_high, int64_t lon_low, int64_t lon_high) {
    return routelog_first_outside_cell_portable(lat, lon, from, count, lat_low, lat_high, lon_low, lon_high);
}
#endif
