// The farthest point of a span from its chord: the scan the preview's Douglas-Peucker
// repeats (format-spec.md, "Derived fields", preview), most of the CPU a save spends on
// derived fields. Points are ranked by a key that needs no division and no square root:
// the squared distance to the segment times the segment's squared length (the squared
// cross product where the point projects inside the segment). The AVX2 path computes
// the same IEEE keys four points at a time, the cross product for every point and the
// distances to the ends only for four points where one of them is nearest an end, one
// chosen per lane, so the result is the same index on every processor.
#include <string.h>

#include "CRouteLogSystem.h"
#include "processor_features.h"

// Every key is the same sequence of roundings in both paths: no fused multiply-add.
#pragma clang fp contract(off)

typedef struct {
    double ax, ay, bx, by, dx, dy, length2;
} chord;

static chord chord_of(const double *x, const double *y, size_t a, size_t b) {
    chord c = {x[a], y[a], x[b], y[b], 0, 0, 0};
    c.dx = c.bx - c.ax;
    c.dy = c.by - c.ay;
    c.length2 = c.dx * c.dx + c.dy * c.dy;
    return c;
}

static inline double key_of(const chord *c, double x, double y) {
    double ix = x - c->ax, iy = y - c->ay;
    if (c->length2 == 0) return ix * ix + iy * iy;
    double dot = ix * c->dx + iy * c->dy;
    if (dot <= 0) return (ix * ix + iy * iy) * c->length2;  // nearest to a
    if (dot >= c->length2) {
        double jx = x - c->bx, jy = y - c->by;
        return (jx * jx + jy * jy) * c->length2;  // nearest to b
    }
    double cross = ix * c->dy - iy * c->dx;
    return cross * cross;
}

// The first of the largest keys from index `from` to b - 1, continuing a search whose
// best so far is (*best, *best_key). A NaN key is never the largest.
static void scan_portable(const chord *c, const double *x, const double *y, size_t from, size_t b,
                          size_t *best, double *best_key) {
    for (size_t i = from; i < b; i++) {
        double k = key_of(c, x[i], y[i]);
        if (k > *best_key) {
            *best_key = k;
            *best = i;
        }
    }
}

size_t routelog_farthest_point_portable(const double *x, const double *y, size_t a, size_t b) {
    chord c = chord_of(x, y, a, b);
    size_t best = a + 1;
    double best_key = -1;
    scan_portable(&c, x, y, a + 1, b, &best, &best_key);
    return best;
}

#if defined(__x86_64__)
#include <immintrin.h>

// Four points an iteration, each lane keeping the first largest of its own points
// (strictly larger replaces); the lanes are then merged, ties to the smaller index,
// which is the first largest over all of them.
__attribute__((target("avx2")))
static size_t farthest_avx2(const double *x, const double *y, size_t a, size_t b) {
    chord c = chord_of(x, y, a, b);
    // A chord whose squared length is 0, subnormal or NaN goes the scalar way (the test
    // below of the points nearest an end counts on a normal length2).
    if (!(c.length2 >= 0x1p-1022) || b - a - 1 < 8) return routelog_farthest_point_portable(x, y, a, b);
    const __m256d ax = _mm256_set1_pd(c.ax), ay = _mm256_set1_pd(c.ay), dx = _mm256_set1_pd(c.dx),
                  dy = _mm256_set1_pd(c.dy);
    // A point is nearest an end when dot <= 0 or dot >= length2: one integer comparison
    // a lane. A double's bits as a signed integer are at most 0 exactly when it is <= 0
    // (a sign bit, or +0), and for doubles >= 0 they are in the doubles' order; so dot is
    // outside (0, length2) exactly when bits(dot) - 1, as unsigned, is at least
    // bits(length2) - 1, which a signed comparison tells with both sides moved by 2^63.
    // A NaN dot passes too, and the masks below leave its lane alone, as key_of does.
    uint64_t length_bits;
    memcpy(&length_bits, &c.length2, sizeof length_bits);
    const __m256i moved_one = _mm256_set1_epi64x((long long)(1 + (1ULL << 63))),
                  inside_below = _mm256_set1_epi64x((long long)((length_bits - 2) ^ (1ULL << 63)));
    __m256d keys = _mm256_set1_pd(-1);
    __m256i index = _mm256_set_epi64x((long long)(a + 4), (long long)(a + 3), (long long)(a + 2), (long long)(a + 1));
    __m256i best = index;
    const __m256i four = _mm256_set1_epi64x(4);
    size_t i = a + 1;
    for (; i + 4 <= b; i += 4) {
        __m256d px = _mm256_loadu_pd(x + i), py = _mm256_loadu_pd(y + i);
        __m256d ix = _mm256_sub_pd(px, ax), iy = _mm256_sub_pd(py, ay);
        __m256d dot = _mm256_add_pd(_mm256_mul_pd(ix, dx), _mm256_mul_pd(iy, dy));
        __m256d cross = _mm256_sub_pd(_mm256_mul_pd(ix, dy), _mm256_mul_pd(iy, dx));
        __m256d k = _mm256_mul_pd(cross, cross);
        // Most points of a span project inside its chord: the keys of the points nearest
        // an end are computed only for four points that have one (the same keys).
        __m256i near_end = _mm256_cmpgt_epi64(_mm256_sub_epi64(_mm256_castpd_si256(dot), moved_one), inside_below);
        if (!_mm256_testz_si256(near_end, near_end)) {
            const __m256d length2 = _mm256_set1_pd(c.length2);
            __m256d past_b = _mm256_cmp_pd(dot, length2, _CMP_GE_OQ), before_a = _mm256_cmp_pd(dot, _mm256_setzero_pd(), _CMP_LE_OQ);
            __m256d jx = _mm256_sub_pd(px, _mm256_set1_pd(c.bx)), jy = _mm256_sub_pd(py, _mm256_set1_pd(c.by));
            __m256d near_a = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(ix, ix), _mm256_mul_pd(iy, iy)), length2);
            __m256d near_b = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(jx, jx), _mm256_mul_pd(jy, jy)), length2);
            k = _mm256_blendv_pd(k, near_b, past_b);
            k = _mm256_blendv_pd(k, near_a, before_a);
        }
        __m256d larger = _mm256_cmp_pd(k, keys, _CMP_GT_OQ);
        keys = _mm256_blendv_pd(keys, k, larger);
        best = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(best), _mm256_castsi256_pd(index), larger));
        index = _mm256_add_epi64(index, four);
    }
    double lane_keys[4];
    long long lane_best[4];
    _mm256_storeu_pd(lane_keys, keys);
    _mm256_storeu_si256((__m256i *)lane_best, best);
    size_t winner = (size_t)lane_best[0];
    double winner_key = lane_keys[0];
    for (int l = 1; l < 4; l++) {
        if (lane_keys[l] > winner_key || (lane_keys[l] == winner_key && (size_t)lane_best[l] < winner)) {
            winner_key = lane_keys[l];
            winner = (size_t)lane_best[l];
        }
    }
    // The last points come after every lane's, so strictly larger keeps the first.
    scan_portable(&c, x, y, i, b, &winner, &winner_key);
    return winner;
}

size_t routelog_farthest_point(const double *x, const double *y, size_t a, size_t b) {
    return routelog_has_avx2() ? farthest_avx2(x, y, a, b) : routelog_farthest_point_portable(x, y, a, b);
}
int routelog_farthest_point_is_wide(void) { return routelog_has_avx2(); }
#else
size_t routelog_farthest_point(const double *x, const double *y, size_t a, size_t b) {
    return routelog_farthest_point_portable(x, y, a, b);
}
int routelog_farthest_point_is_wide(void) { return 0; }
#endif
