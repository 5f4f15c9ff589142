// A save's first pass over its points, a few hundred at a time and a field at a time: each
// value to its stored integer (format-spec.md, "Quantization"), its range checked, the smallest and largest
// integers kept (a route's bounding box), absent values counted. Every point of every
// save goes through here, so the width of the vectors is what this file is for. The
// AVX2 path gives the integers routelog_scaled gives: the same additions and
// multiplications, the same rounding (ties away from zero), and the conversion done
// exactly where the value is below 2^51, by routelog_scaled itself elsewhere.
#include <string.h>
#include "CRouteLogSystem.h"
#include "processor_features.h"

#pragma clang fp contract(off)

static inline int is_absent(double x, uint64_t absent_bits) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == absent_bits;
}

// Points from..count-1 of one field, added to *summary.
static void quantize_portable(const double *points, size_t from, size_t count, size_t stride,
                              const routelog_field_spec *spec, uint64_t absent_bits, routelog_field_summary *summary) {
    const size_t field = spec->field;
    const double offset = spec->offset, scale = spec->scale, low = spec->low, high = spec->high;
    int64_t *values = spec->values;
    double *raw = spec->raw;
    for (size_t i = from; i < count; i++) {
        double x = points[i * stride + field];
        if (raw) raw[i] = x;
        if (spec->optional && is_absent(x, absent_bits)) {
            values[i] = 0;
            summary->absent++;
            continue;
        }
        int64_t v = routelog_scaled(x + offset, scale);
        values[i] = v;
        if (!(x >= low && x <= high)) summary->in_range = 0;
        if (spec->optional) continue;
        if (v < summary->min) summary->min = v;
        if (v > summary->max) summary->max = v;
    }
}

static routelog_field_summary empty_summary(void) {
    routelog_field_summary s = {INT64_MAX, INT64_MIN, 0, 1};
    return s;
}

// Points this many at a time, every field of them: a point is 80 bytes, and reading
// one field of every point, then the next, would bring each point into the cache once
// per field.
enum { chunk_points = 256 };

typedef void (*chunk_quantizer)(const double *points, size_t from, size_t count, size_t stride,
                                const routelog_field_spec *spec, uint64_t absent_bits, routelog_field_summary *summary);

static void quantize_in_chunks(chunk_quantizer quantize, const double *points, size_t count, size_t stride,
                               const routelog_field_spec *specs, size_t field_count, uint64_t absent_bits,
                               routelog_field_summary *summaries) {
    for (size_t k = 0; k < field_count; k++) summaries[k] = empty_summary();
    for (size_t from = 0; from < count; from += chunk_points) {
        size_t to = count - from < chunk_points ? count : from + chunk_points;
        // The next chunk's points asked for now, while this chunk's fields are worked.
        if (to < count) {
            const char *next = (const char *)(points + to * stride);
            size_t bytes = (count - to < chunk_points ? count - to : chunk_points) * stride * sizeof(double);
            for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(next + b);
            __builtin_prefetch(next + bytes - 1);  // the last line, when the chunk does not start on one
        }
        for (size_t k = 0; k < field_count; k++) quantize(points, from, to, stride, &specs[k], absent_bits, &summaries[k]);
    }
}

void routelog_quantize_fields_portable(const double *points, size_t count, size_t stride,
                                       const routelog_field_spec *specs, size_t field_count, uint64_t absent_bits,
                                       routelog_field_summary *summaries) {
    quantize_in_chunks(quantize_portable, points, count, stride, specs, field_count, absent_bits, summaries);
}

#if defined(__x86_64__)
#include <immintrin.h>

// Compiled four times, with `optional` and `copy` fixed: an optional field has absent
// values and no smallest and largest (nothing uses them), a required field the
// reverse, and only some fields are copied as they are read (spec->raw), so no loop
// does another's work or tests for it.
//
// The range check and the smallest and largest integers come from the smallest and
// largest double, found as the values go (one MINPD and one MAXPD, which pass over a
// NaN): x -> routelog_scaled(x + offset, scale) never decreases for x not NaN and a
// positive scale, as every field's is (the add, the multiply, the rounding and the
// clamping all keep order; a scale of 0, below 0 or NaN would break this), so the extremes of the
// integers are the integers of the extreme doubles. A NaN, an infinity or any value
// scaled to 2^51 or more is not converted exactly by the vector path; its group of four
// takes routelog_scaled lane by lane, and those lanes are checked and counted there.
// The lanes of a group of four the vector path cannot convert exactly (a NaN, or a
// value at 2^51 or beyond): routelog_scaled's own clamping, and each lane's own checks (a
// NaN is out of range; its integer, 0, counts in a required field's extremes, which
// the doubles' pass over). Out of the loop, so that the loop keeps its registers.
__attribute__((noinline))
static void quantize_lanes(const double *p, size_t stride, const routelog_field_spec *spec, uint64_t absent_bits,
                           int optional, int64_t *lanes, routelog_field_summary *summary) {
    for (int l = 0; l < 4; l++) {
        double x = p[l * stride];
        if (optional && is_absent(x, absent_bits)) continue;
        lanes[l] = routelog_scaled(x + spec->offset, spec->scale);
        if (!(x >= spec->low && x <= spec->high)) summary->in_range = 0;
        if (optional) continue;
        if (lanes[l] < summary->min) summary->min = lanes[l];
        if (lanes[l] > summary->max) summary->max = lanes[l];
    }
}

__attribute__((target("avx2"), always_inline))
static inline void quantize_avx2_kernel(const double *points, size_t from, size_t count, size_t stride,
                                        const routelog_field_spec *spec, uint64_t absent_bits,
                                        routelog_field_summary *summary, const int optional, const int copy) {
    int64_t *values = spec->values;
    double *raw = spec->raw;
    const __m256d vscale = _mm256_set1_pd(spec->scale), voffset = _mm256_set1_pd(spec->offset),
                  sign = _mm256_set1_pd(-0.0), below_half = _mm256_set1_pd(0.49999999999999994),
                  exact_limit = _mm256_set1_pd(2251799813685248.0),
                  magic = _mm256_set1_pd(6755399441055744.0);  // 2^52 + 2^51
    const __m256i absent = _mm256_set1_epi64x((long long)absent_bits), magic_bits = _mm256_castpd_si256(magic);
    __m256d smallest = _mm256_set1_pd(__builtin_inf()), largest = _mm256_set1_pd(-__builtin_inf());
    __m256i absent_lanes = _mm256_setzero_si256();
    // The field of points i..i+3 at p, p + stride, p + 2 stride and p + 3 stride.
    const double *p = points + spec->field + from * stride;
    const size_t stride2 = 2 * stride, stride3 = 3 * stride, step = 4 * stride;
    size_t i = from;
    for (; i + 4 <= count; i += 4, p += step) {
        __m256d x = _mm256_set_pd(p[stride3], p[stride2], p[stride], p[0]);
        if (copy) _mm256_storeu_pd(raw + i, x);
        __m256d v = _mm256_mul_pd(_mm256_add_pd(x, voffset), vscale);
        // Ties away from zero: add the largest double below 0.5 with v's sign, truncate.
        __m256d w = _mm256_add_pd(v, _mm256_or_pd(_mm256_and_pd(v, sign), below_half));
        __m256d t = _mm256_round_pd(w, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        // Exact below 2^51: t + 2^52 + 2^51 holds t in its low bits.
        __m256d exact = _mm256_cmp_pd(_mm256_andnot_pd(sign, t), exact_limit, _CMP_LT_OQ);
        __m256i q = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(t, magic)), magic_bits);
        // x first: a NaN lane (the absent pattern too) leaves the extremes as they were.
        smallest = _mm256_min_pd(x, smallest);
        largest = _mm256_max_pd(x, largest);
        if (optional) {
            __m256i is_absent_lane = _mm256_cmpeq_epi64(_mm256_castpd_si256(x), absent);
            q = _mm256_andnot_si256(is_absent_lane, q);
            exact = _mm256_or_pd(exact, _mm256_castsi256_pd(is_absent_lane));
            absent_lanes = _mm256_sub_epi64(absent_lanes, is_absent_lane);  // -(-1) per absent lane
        }
        if (__builtin_expect(_mm256_movemask_pd(exact) != 0xF, 0)) {
            int64_t lanes[4];
            _mm256_storeu_si256((__m256i *)lanes, q);
            quantize_lanes(p, stride, spec, absent_bits, optional, lanes, summary);
            q = _mm256_loadu_si256((const __m256i *)lanes);
        }
        _mm256_storeu_si256((__m256i *)(values + i), q);
    }
    double low[4], high[4];
    int64_t absents[4];
    _mm256_storeu_pd(low, smallest);
    _mm256_storeu_pd(high, largest);
    _mm256_storeu_si256((__m256i *)absents, absent_lanes);
    double least = low[0], most = high[0];
    for (int l = 0; l < 4; l++) {
        if (low[l] < least) least = low[l];
        if (high[l] > most) most = high[l];
        summary->absent += (size_t)absents[l];
    }
    if (least <= most) {  // a value that is not NaN was seen
        if (!(least >= spec->low && most <= spec->high)) summary->in_range = 0;
        if (!optional) {
            int64_t a = routelog_scaled(least + spec->offset, spec->scale), b = routelog_scaled(most + spec->offset, spec->scale);
            if (a < summary->min) summary->min = a;
            if (b > summary->max) summary->max = b;
        }
    }
    quantize_portable(points, i, count, stride, spec, absent_bits, summary);
}

// True when no point from..count-1 has the field: four points a comparison, stopping at
// the first that has it (the first point, for a field most points have).
static inline int all_absent(const double *p, size_t from, size_t count, size_t stride, uint64_t absent_bits) {
    size_t i = from;
    for (; i + 4 <= count; i += 4) {
        uint64_t b0, b1, b2, b3;
        memcpy(&b0, &p[i * stride], 8), memcpy(&b1, &p[(i + 1) * stride], 8);
        memcpy(&b2, &p[(i + 2) * stride], 8), memcpy(&b3, &p[(i + 3) * stride], 8);
        if (((b0 ^ absent_bits) | (b1 ^ absent_bits) | (b2 ^ absent_bits) | (b3 ^ absent_bits)) != 0) return 0;
    }
    for (; i < count; i++) {
        uint64_t b;
        memcpy(&b, &p[i * stride], 8);
        if (b != absent_bits) return 0;
    }
    return 1;
}

__attribute__((target("avx2")))
static void quantize_avx2(const double *points, size_t from, size_t count, size_t stride,
                          const routelog_field_spec *spec, uint64_t absent_bits, routelog_field_summary *summary) {
    if (!spec->optional) {
        if (spec->raw) quantize_avx2_kernel(points, from, count, stride, spec, absent_bits, summary, 0, 1);
        else quantize_avx2_kernel(points, from, count, stride, spec, absent_bits, summary, 0, 0);
        return;
    }
    // A chunk of points without the field (a field most routes lack, as a GPX file's
    // routes lack speeds): each stored as 0 and counted, with none of the arithmetic;
    // what the loop below gives them.
    if (all_absent(points + spec->field, from, count, stride, absent_bits)) {
        memset(spec->values + from, 0, (count - from) * sizeof(int64_t));
        if (spec->raw) {
            double absent;
            memcpy(&absent, &absent_bits, sizeof absent);
            for (size_t i = from; i < count; i++) spec->raw[i] = absent;
        }
        summary->absent += count - from;
        return;
    }
    if (spec->raw) quantize_avx2_kernel(points, from, count, stride, spec, absent_bits, summary, 1, 1);
    else quantize_avx2_kernel(points, from, count, stride, spec, absent_bits, summary, 1, 0);
}

void routelog_quantize_fields(const double *points, size_t count, size_t stride, const routelog_field_spec *specs,
                              size_t field_count, uint64_t absent_bits, routelog_field_summary *summaries) {
    quantize_in_chunks(routelog_has_avx2() ? quantize_avx2 : quantize_portable, points, count, stride, specs,
                       field_count, absent_bits, summaries);
}
int routelog_quantize_fields_is_wide(void) { return routelog_has_avx2(); }
#else
void routelog_quantize_fields(const double *points, size_t count, size_t stride, const routelog_field_spec *specs,
                              size_t field_count, uint64_t absent_bits, routelog_field_summary *summaries) {
    routelog_quantize_fields_portable(points, count, stride, specs, field_count, absent_bits, summaries);
}
int routelog_quantize_fields_is_wide(void) { return 0; }
#endif
