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

// The constants of one chord's scan.
typedef struct {
    __m256d ax, ay, dx, dy;
    __m256i one, inside_below;
} chord_avx2;

// The cross-product keys of the four points from x + i, and which of them are nearest
// an end or have a NaN dot (their keys are then made by `end_keys_avx2`). The
// differences are taken from the chord's start, a - p (each exactly -(p - a), so the
// dot and the cross product are exactly negated, or the same zero, and the cross
// product's square has the same bits): then the points are operands of the
// subtractions, with no load of their own.
__attribute__((target("avx2"))) static inline __m256d cross_keys_avx2(const chord_avx2 *v, const double *x,
                                                                        const double *y, size_t i, __m256i *near_end) {
    __m256d ix = _mm256_sub_pd(v->ax, _mm256_loadu_pd(x + i)), iy = _mm256_sub_pd(v->ay, _mm256_loadu_pd(y + i));
    __m256d dot = _mm256_add_pd(_mm256_mul_pd(ix, v->dx), _mm256_mul_pd(iy, v->dy));
    __m256d cross = _mm256_sub_pd(_mm256_mul_pd(ix, v->dy), _mm256_mul_pd(iy, v->dx));
    // A point is nearest an end when its dot is outside (0, length2), so when this
    // negated dot is outside (-length2, 0): one integer comparison a lane. The doubles in
    // (-length2, 0) have the bits 2^63 + 1 to 2^63 + bits(length2) - 1; less 1 (a
    // wrapping subtraction), as signed integers, they are the integers from -2^63 up to
    // (bits(length2) - 2) ^ 2^63, and every other double's bits less 1 are above that:
    // +0 gives -1, -0 gives 2^63 - 1, a positive double or NaN gives at least 0, and
    // -length2 or below, or a negative NaN, more than the bound.
    *near_end = _mm256_cmpgt_epi64(_mm256_sub_epi64(_mm256_castpd_si256(dot), v->one), v->inside_below);
    return _mm256_mul_pd(cross, cross);
}

// The keys `key_of` gives the four points from x + i, from their cross-product keys
// `k`: the points nearest an end made again as key_of makes them (a NaN dot leaves its
// lane alone, as key_of does).
__attribute__((target("avx2"))) static inline __m256d end_keys_avx2(const chord *c, const double *x, const double *y,
                                                                      size_t i, __m256d k) {
    // The points loaded again here: an empty asm hides that they are the scan's loads,
    // which the compiler otherwise kept in registers for this rare path, spilling the
    // chord's constants to the stack inside the loop.
    __asm__("" : "+r"(x), "+r"(y));
    const __m256d length2 = _mm256_set1_pd(c->length2);
    __m256d px = _mm256_loadu_pd(x + i), py = _mm256_loadu_pd(y + i);
    __m256d ix = _mm256_sub_pd(px, _mm256_set1_pd(c->ax)), iy = _mm256_sub_pd(py, _mm256_set1_pd(c->ay));
    __m256d dot = _mm256_add_pd(_mm256_mul_pd(ix, _mm256_set1_pd(c->dx)), _mm256_mul_pd(iy, _mm256_set1_pd(c->dy)));
    __m256d past_b = _mm256_cmp_pd(dot, length2, _CMP_GE_OQ), before_a = _mm256_cmp_pd(dot, _mm256_setzero_pd(), _CMP_LE_OQ);
    __m256d jx = _mm256_sub_pd(px, _mm256_set1_pd(c->bx)), jy = _mm256_sub_pd(py, _mm256_set1_pd(c->by));
    __m256d near_a = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(ix, ix), _mm256_mul_pd(iy, iy)), length2);
    __m256d near_b = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(jx, jx), _mm256_mul_pd(jy, jy)), length2);
    k = _mm256_blendv_pd(k, near_b, past_b);
    return _mm256_blendv_pd(k, near_a, before_a);
}

// Each lane keeps the first largest of its own points (strictly larger replaces); the
// lanes are then merged, ties to the smaller index, which is the first largest over all
// of them.
__attribute__((target("avx2")))
static size_t farthest_avx2(const double *x, const double *y, size_t a, size_t b) {
    chord c = chord_of(x, y, a, b);
    // A chord whose squared length is 0, subnormal or NaN goes the scalar way (the test
    // of the points nearest an end counts on a normal length2).
    if (!(c.length2 >= 0x1p-1022) || b - a - 1 < 8) return routelog_farthest_point_portable(x, y, a, b);
    uint64_t length_bits;
    memcpy(&length_bits, &c.length2, sizeof length_bits);
    chord_avx2 v = {_mm256_set1_pd(c.ax), _mm256_set1_pd(c.ay), _mm256_set1_pd(c.dx), _mm256_set1_pd(c.dy),
                    _mm256_set1_epi64x(1), _mm256_set1_epi64x((long long)((length_bits - 2) ^ (1ULL << 63)))};
    __m256d keys = _mm256_set1_pd(-1);
    __m256i index = _mm256_set_epi64x((long long)(a + 4), (long long)(a + 3), (long long)(a + 2), (long long)(a + 1));
    __m256i best = index;
    const __m256i four = _mm256_set1_epi64x(4);
    size_t i = a + 1;
    // Eight points an iteration, one test for the eight of whether any is nearest an
    // end (most points of a span project inside its chord). Under callgrind
    // (routelog-bench --codec --save-loop 1) a walk's scans took about 18 instructions
    // for four points, against 22 for four points an iteration with their own loads.
    for (; i + 8 <= b; i += 8) {
        __m256i near0, near1;
        __m256d k0 = cross_keys_avx2(&v, x, y, i, &near0), k1 = cross_keys_avx2(&v, x, y, i + 4, &near1);
        __m256i near_end = _mm256_or_si256(near0, near1);
        if (!_mm256_testz_si256(near_end, near_end)) {
            k0 = end_keys_avx2(&c, x, y, i, k0);
            k1 = end_keys_avx2(&c, x, y, i + 4, k1);
        }
        __m256d larger = _mm256_cmp_pd(k0, keys, _CMP_GT_OQ);
        keys = _mm256_blendv_pd(keys, k0, larger);
        best = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(best), _mm256_castsi256_pd(index), larger));
        index = _mm256_add_epi64(index, four);
        larger = _mm256_cmp_pd(k1, keys, _CMP_GT_OQ);
        keys = _mm256_blendv_pd(keys, k1, larger);
        best = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(best), _mm256_castsi256_pd(index), larger));
        index = _mm256_add_epi64(index, four);
    }
    if (i + 4 <= b) {
        __m256i near_end;
        __m256d k = cross_keys_avx2(&v, x, y, i, &near_end);
        if (!_mm256_testz_si256(near_end, near_end)) k = end_keys_avx2(&c, x, y, i, k);
        __m256d larger = _mm256_cmp_pd(k, keys, _CMP_GT_OQ);
        keys = _mm256_blendv_pd(keys, k, larger);
        best = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(best), _mm256_castsi256_pd(index), larger));
        i += 4;
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
