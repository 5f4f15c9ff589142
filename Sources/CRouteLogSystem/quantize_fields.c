// A save's first pass over its points, a few hundred at a time and a field at a time: each
// value to its stored integer (format-spec.md, "Quantization"), its range checked, the smallest and largest
// integers kept (a route's bounding box), absent values counted. Every point of every
// save goes through here, so the width of the vectors is what this file is for. The
// AVX2 path gives the integers routelog_scaled gives: the same additions and
// multiplications, the same rounding (ties away from zero), and the conversion done
// exactly where the value is below 2^51, by routelog_scaled itself elsewhere. With
// AVX2 and points of ten doubles (a TrackPoint), a chunk's fields are first laid side
// by side (columns_of_points), and each field is then read four values a load, the
// exactness of its lanes checked once a chunk (quantize_column_checked_once); only a
// chunk with a value that check does not take is converted again lane by lane.
#include <string.h>
#include "CRouteLogSystem.h"
#include "processor_features.h"

#pragma clang fp contract(off)

static inline int is_absent(double x, uint64_t absent_bits) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == absent_bits;
}

// Points from..count-1 of one field, added to *summary: point i's value at
// p[(i - from) * stride].
static void quantize_run_portable(const double *p, size_t stride, size_t from, size_t count,
                                  const routelog_field_spec *spec, uint64_t absent_bits, routelog_field_summary *summary) {
    const double offset = spec->offset, scale = spec->scale, low = spec->low, high = spec->high;
    int64_t *values = spec->values;
    double *raw = spec->raw;
    for (size_t i = from; i < count; i++, p += stride) {
        double x = *p;
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

static void quantize_portable(const double *points, size_t from, size_t count, size_t stride,
                              const routelog_field_spec *spec, uint64_t absent_bits, routelog_field_summary *summary) {
    quantize_run_portable(points + spec->field + from * stride, stride, from, count, spec, absent_bits, summary);
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

// The smallest of `smallest`'s four lanes and the largest of `largest`'s (a lane that saw
// only NaNs keeps +inf or -inf: MINPD and MAXPD of a NaN and a number give the number).
__attribute__((target("avx2"), always_inline))
static inline void lane_extremes(__m256d smallest, __m256d largest, double *least, double *most) {
    double low[4], high[4];
    _mm256_storeu_pd(low, smallest);
    _mm256_storeu_pd(high, largest);
    *least = low[0], *most = high[0];
    for (int l = 0; l < 4; l++) {
        if (low[l] < *least) *least = low[l];
        if (high[l] > *most) *most = high[l];
    }
}

__attribute__((target("avx2"), always_inline))
static inline void quantize_avx2_kernel(const double *p, size_t stride, size_t from, size_t count,
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
    size_t absent_lanes = 0;
    // The field of points i..i+3 at p, p + stride, p + 2 stride and p + 3 stride (one
    // load where they are side by side).
    const size_t stride2 = 2 * stride, stride3 = 3 * stride, step = 4 * stride;
    size_t i = from;
    for (; i + 4 <= count; i += 4, p += step) {
        __m256d x = stride == 1 ? _mm256_loadu_pd(p) : _mm256_set_pd(p[stride3], p[stride2], p[stride], p[0]);
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
            // Counted in a general register: a vector count left the loop one register
            // short, and it kept a value on the stack.
            // (The bits of a 4-bit mask, m, are the m-th nibble of the constant.)
            unsigned mask = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(is_absent_lane));
            absent_lanes += (size_t)((0x4332322132212110ull >> (4 * mask)) & 0xF);
        }
        if (__builtin_expect(_mm256_movemask_pd(exact) != 0xF, 0)) {
            int64_t lanes[4];
            _mm256_storeu_si256((__m256i *)lanes, q);
            quantize_lanes(p, stride, spec, absent_bits, optional, lanes, summary);
            q = _mm256_loadu_si256((const __m256i *)lanes);
        }
        _mm256_storeu_si256((__m256i *)(values + i), q);
    }
    double least, most;
    lane_extremes(smallest, largest, &least, &most);
    summary->absent += absent_lanes;
    if (least <= most) {  // a value that is not NaN was seen
        if (!(least >= spec->low && most <= spec->high)) summary->in_range = 0;
        if (!optional) {
            int64_t a = routelog_scaled(least + spec->offset, spec->scale), b = routelog_scaled(most + spec->offset, spec->scale);
            if (a < summary->min) summary->min = a;
            if (b > summary->max) summary->max = b;
        }
    }
    if (copy) {
        quantize_run_portable(p, stride, i, count, spec, absent_bits, summary);
    } else {
        routelog_field_spec uncopied = *spec;
        uncopied.raw = NULL;
        quantize_run_portable(p, stride, i, count, &uncopied, absent_bits, summary);
    }
}

// A field side by side (a column) that is not copied is first quantized with the
// exactness of its lanes checked once for the whole run rather than for every four
// (quantize_column_checked_once), in one of two ways:
enum conversion {
    // A field with no offset whose values from low to high all scale to less than
    // 2^31 - 1 in magnitude (every field of a TrackPoint but its time): CVTTPD2DQ, which
    // truncates as routelog_scaled does, to 32 bits, widened to 64. A NaN, an infinity or
    // a value scaled past 32 bits converts to INT32_MIN, which the smallest 32-bit half
    // kept (one PMINSD) shows. An offset of +0 is left out: it turns -0 into +0, which
    // stores 0 all the same.
    within_32_bits,
    // A required field (a TrackPoint's time): quantize_avx2_kernel's rounding and
    // conversion, exact below 2^51, which the extremes of the run show; a NaN, which
    // the extremes pass over, is kept in a mask (a compare and an OR).
    within_51_bits,
};

// The sign a run's values are taken to have: with one sign, the half that rounds ties
// away from zero is a constant, not v's sign copied onto 0.49999999999999994 (an AND
// and an OR a group fewer: callgrind, --codec --save-loop 1, 12.5 to 10.5 instructions a
// group of four within 32 bits, 17 to 15 for the time); the run is then checked to have
// no value of the other sign, and a run with both is taken again with either_sign.
enum value_sign { either_sign, not_negative, not_positive };

enum run_outcome { run_not_taken, run_taken, run_of_both_signs };

static int scales_within_32_bits(const routelog_field_spec *spec) {
    const double limit = 2147483646.0;  // 2^31 - 2: |v| + 0.5 then truncates below 2^31 - 1
    return spec->offset == 0 && spec->scale > 0 && spec->low * spec->scale >= -limit &&
           spec->high * spec->scale <= limit;
}

// x scaled as routelog_scaled scales it, before rounding, below 2^51 - 1 in magnitude.
static int scales_below_2_51(double x, const routelog_field_spec *spec) {
    double v = (x + spec->offset) * spec->scale;
    return v > -2251799813685247.0 && v < 2251799813685247.0;
}

// One field of points from..count-1 at p, side by side, not copied. Returns run_taken
// with the summary taken when every value converted exactly and was in range (what the
// portable loop gives then: in_range untouched, the extremes those of the extreme
// doubles); otherwise the summary is untouched and the values written are for the
// caller to write again: lane by lane (quantize_avx2_kernel) after run_not_taken, with
// either_sign after run_of_both_signs (a run that was otherwise taken). A value out of
// range shows in the smallest or largest double. Per four values, the exactness check
// of quantize_avx2_kernel (an ANDNPD, a compare, a MOVMSK and a branch, with, in 32
// bits, the ROUNDPD and the two ADDs of the conversion) and its absent count (a MOVMSK,
// a table look-up and an ADD) take 1 or 2 instructions here. Callgrind, --codec
// --save-loop 1, instructions a group of four (the walks' values have one sign a run):
// an optional field 29 to 10.5 and a required one within 32 bits 22 to 10.5 (clang
// unrolls these loops by two), the time 22 to 15.
//
// `absent_lanes_possible` (an optional field only, within 32 bits) looks for absent
// values, stores them as 0 and counts them (3 instructions a group); without it, an
// absent value is a NaN like any other and the run is not taken.
__attribute__((target("avx2"), always_inline))
static inline enum run_outcome quantize_column_checked_once(const double *p, size_t from, size_t count,
                                                            const routelog_field_spec *spec, uint64_t absent_bits,
                                                            routelog_field_summary *summary, const int optional,
                                                            const int absent_lanes_possible,
                                                            const enum conversion conversion, const enum value_sign value_sign) {
    const __m256d vscale = _mm256_set1_pd(spec->scale), voffset = _mm256_set1_pd(spec->offset),
                  sign = _mm256_set1_pd(-0.0), below_half = _mm256_set1_pd(0.49999999999999994),
                  half_of_sign = _mm256_set1_pd(value_sign == not_positive ? -0.49999999999999994 : 0.49999999999999994),
                  magic = _mm256_set1_pd(6755399441055744.0);  // 2^52 + 2^51
    const __m256i absent = _mm256_set1_epi64x((long long)absent_bits), magic_bits = _mm256_castpd_si256(magic);
    __m256d smallest = _mm256_set1_pd(__builtin_inf()), largest = _mm256_set1_pd(-__builtin_inf());
    __m256i lowest_half = _mm256_setzero_si256(), absent_lanes = _mm256_setzero_si256();
    __m256d nan_lanes = _mm256_setzero_pd();
    const size_t grouped = (count - from) & ~(size_t)3;
    int64_t *values = spec->values + from;
    for (size_t i = 0; i < grouped; i += 4) {
        __m256d x = _mm256_loadu_pd(p + i);
        __m256d v = _mm256_mul_pd(conversion == within_32_bits ? x : _mm256_add_pd(x, voffset), vscale);
        // Ties away from zero: add the largest double below 0.5 with v's sign, truncate.
        __m256d w = value_sign == either_sign ? _mm256_add_pd(v, _mm256_or_pd(_mm256_and_pd(v, sign), below_half))
                                              : _mm256_add_pd(v, half_of_sign);
        __m256i q;
        if (conversion == within_32_bits) {
            q = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(w));
        } else {
            __m256d t = _mm256_round_pd(w, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            q = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(t, magic)), magic_bits);
            nan_lanes = _mm256_or_pd(nan_lanes, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
        }
        // x first: a NaN lane (the absent pattern too) leaves the extremes as they were.
        smallest = _mm256_min_pd(x, smallest);
        largest = _mm256_max_pd(x, largest);
        if (absent_lanes_possible) {
            __m256i is_absent_lane = _mm256_cmpeq_epi64(_mm256_castpd_si256(x), absent);
            q = _mm256_andnot_si256(is_absent_lane, q);
            absent_lanes = _mm256_sub_epi64(absent_lanes, is_absent_lane);
        }
        if (conversion == within_32_bits) lowest_half = _mm256_min_epi32(lowest_half, q);
        _mm256_storeu_si256((__m256i *)(values + i), q);
    }
    if (conversion == within_32_bits) {
        __m256i unconverted = _mm256_cmpeq_epi32(lowest_half, _mm256_set1_epi32(INT32_MIN));
        if (!_mm256_testz_si256(unconverted, unconverted)) return run_not_taken;
    } else if (_mm256_movemask_pd(nan_lanes) != 0) {
        return run_not_taken;
    }
    double least, most;
    lane_extremes(smallest, largest, &least, &most);
    if (least <= most) {  // a value that is not NaN was seen
        if (!(least >= spec->low && most <= spec->high)) return run_not_taken;
        if (conversion == within_51_bits && !(scales_below_2_51(least, spec) && scales_below_2_51(most, spec))) {
            return run_not_taken;
        }
        // v, between the extremes' (it is monotonic in x), is to have the sign taken
        // (-0 and +0 either).
        double v_least = (least + spec->offset) * spec->scale, v_most = (most + spec->offset) * spec->scale;
        if (value_sign == not_negative && !(v_least >= 0 && v_most >= 0)) return run_of_both_signs;
        if (value_sign == not_positive && !(v_least <= 0 && v_most <= 0)) return run_of_both_signs;
    }
    if (absent_lanes_possible) {
        int64_t counted[4];
        _mm256_storeu_si256((__m256i *)counted, absent_lanes);
        summary->absent += (size_t)(counted[0] + counted[1] + counted[2] + counted[3]);
    }
    if (!optional && least <= most) {
        int64_t a = routelog_scaled(least + spec->offset, spec->scale), b = routelog_scaled(most + spec->offset, spec->scale);
        if (a < summary->min) summary->min = a;
        if (b > summary->max) summary->max = b;
    }
    if (grouped < count - from) {
        routelog_field_spec uncopied = *spec;
        uncopied.raw = NULL;
        quantize_run_portable(p + grouped, 1, from + grouped, count, &uncopied, absent_bits, summary);
    }
    return run_taken;
}

// quantize_column_checked_once with the sign of the run's first value (+0 and -0 taken
// as not negative, a NaN as either), and with either sign when the run has both.
// Returns 1 when the run was taken.
__attribute__((target("avx2"), always_inline))
static inline int quantize_column(const double *p, size_t from, size_t count, const routelog_field_spec *spec,
                                  uint64_t absent_bits, routelog_field_summary *summary, const int optional,
                                  const int absent_lanes_possible, const enum conversion conversion) {
    const double first = from < count ? (p[0] + spec->offset) * spec->scale : __builtin_nan("");
    enum run_outcome outcome = run_of_both_signs;
    if (first >= 0) {
        outcome = quantize_column_checked_once(p, from, count, spec, absent_bits, summary, optional, absent_lanes_possible,
                                               conversion, not_negative);
    } else if (first < 0) {
        outcome = quantize_column_checked_once(p, from, count, spec, absent_bits, summary, optional, absent_lanes_possible,
                                               conversion, not_positive);
    }
    if (outcome == run_of_both_signs) {
        outcome = quantize_column_checked_once(p, from, count, spec, absent_bits, summary, optional, absent_lanes_possible,
                                               conversion, either_sign);
    }
    return outcome == run_taken;
}

// True when no point from..count-1 has the field (point i's value at p[(i - from) *
// stride]): four points a comparison, stopping at the first that has it (the first
// point, for a field most points have).
static inline int all_absent(const double *p, size_t from, size_t count, size_t stride, uint64_t absent_bits) {
    size_t n = count - from, i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64_t b0, b1, b2, b3;
        memcpy(&b0, &p[i * stride], 8), memcpy(&b1, &p[(i + 1) * stride], 8);
        memcpy(&b2, &p[(i + 2) * stride], 8), memcpy(&b3, &p[(i + 3) * stride], 8);
        if (((b0 ^ absent_bits) | (b1 ^ absent_bits) | (b2 ^ absent_bits) | (b3 ^ absent_bits)) != 0) return 0;
    }
    for (; i < n; i++) {
        uint64_t b;
        memcpy(&b, &p[i * stride], 8);
        if (b != absent_bits) return 0;
    }
    return 1;
}

// all_absent for a field side by side (a column): sixteen values a test, four
// 256-bit compares and-ed together, where all_absent takes 3 instructions a value
// (callgrind, --codec --save-loop 1: the walks' two absent fields, 27,000 instructions
// a save, to 7,000).
__attribute__((target("avx2")))
static inline int column_all_absent(const double *p, size_t n, uint64_t absent_bits) {
    const __m256i absent = _mm256_set1_epi64x((long long)absent_bits);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(p + i)), absent);
        __m256i b = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(p + i + 4)), absent);
        __m256i c = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(p + i + 8)), absent);
        __m256i d = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(p + i + 12)), absent);
        __m256i all = _mm256_and_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, d));
        if (_mm256_movemask_pd(_mm256_castsi256_pd(all)) != 0xF) return 0;
    }
    return all_absent(p + i, 0, n - i, 1, absent_bits);
}

// One field of points from..count-1, point i's value at p[(i - from) * stride]; `copy`
// says whether the values still go to spec->raw (they are there already when p is it).
// The kernel is compiled for each combination of a side-by-side field (stride 1, read
// four values a load), an optional one and a copied one.
#define QUANTIZE_KERNEL(optional, copy)                                                                  \
    (stride == 1 ? quantize_avx2_kernel(p, 1, from, count, spec, absent_bits, summary, optional, copy) \
                 : quantize_avx2_kernel(p, stride, from, count, spec, absent_bits, summary, optional, copy))

__attribute__((target("avx2")))
static void quantize_avx2_at(const double *p, size_t stride, size_t from, size_t count, const routelog_field_spec *spec,
                             uint64_t absent_bits, routelog_field_summary *summary, int copy) {
    copy = copy && spec->raw;
    const int column = stride == 1 && !copy, in_32_bits = column && scales_within_32_bits(spec);
    if (!spec->optional) {
        if (in_32_bits && quantize_column(p, from, count, spec, absent_bits, summary, 0, 0, within_32_bits)) return;
        if (column && !in_32_bits && quantize_column(p, from, count, spec, absent_bits, summary, 0, 0, within_51_bits)) return;
        if (copy) QUANTIZE_KERNEL(0, 1);
        else QUANTIZE_KERNEL(0, 0);
        return;
    }
    // A chunk of points without the field (a field most routes lack, as a GPX file's
    // routes lack speeds): each stored as 0 and counted, with none of the arithmetic;
    // what the loop below gives them.
    if (stride == 1 ? column_all_absent(p, count - from, absent_bits) : all_absent(p, from, count, stride, absent_bits)) {
        memset(spec->values + from, 0, (count - from) * sizeof(int64_t));
        if (copy) {
            double absent;
            memcpy(&absent, &absent_bits, sizeof absent);
            for (size_t i = from; i < count; i++) spec->raw[i] = absent;
        }
        summary->absent += count - from;
        return;
    }
    if (in_32_bits) {
        // A field no point so far lacked is first tried as if every point had it
        // (callgrind, --codec --save-loop 1: 17 to 12.5 instructions a group of four,
        // clang unrolling the loop without the absent count); a run with an absent value
        // then takes the loop that counts them, as do the runs after it.
        if (summary->absent == 0 && quantize_column(p, from, count, spec, absent_bits, summary, 1, 0, within_32_bits)) return;
        if (quantize_column(p, from, count, spec, absent_bits, summary, 1, 1, within_32_bits)) return;
    }
    if (copy) QUANTIZE_KERNEL(1, 1);
    else QUANTIZE_KERNEL(1, 0);
}

__attribute__((target("avx2")))
static void quantize_avx2(const double *points, size_t from, size_t count, size_t stride,
                          const routelog_field_spec *spec, uint64_t absent_bits, routelog_field_summary *summary) {
    quantize_avx2_at(points + spec->field + from * stride, stride, from, count, spec, absent_bits, summary, 1);
}

// Points of ten doubles (a TrackPoint as RouteLog lays it out): a chunk's points are
// first turned into ten columns, four points at a time (two fields of four points from
// four 16-byte loads and two unpacks), where a field read from points 80 bytes apart
// took a load for every value and three shuffles for every four. A column goes straight
// into the field's copy when it has one (spec->raw), else into `scratch`; the fields
// are then worked from their columns, four values a load.
enum { point_doubles = 10 };

__attribute__((target("avx2")))
static void columns_of_points(const double *points, size_t from, size_t to, double *const columns[point_doubles]) {
    const double *p = points + from * point_doubles;
    const size_t n = to - from, grouped = n & ~(size_t)3;
    size_t i = 0;
    for (; i < grouped; i += 4, p += 4 * point_doubles) {
        for (int f = 0; f < point_doubles; f += 2) {
            // a: points 0 and 2, fields f and f + 1; b: points 1 and 3.
            __m256d a = _mm256_loadu2_m128d(p + 2 * point_doubles + f, p + f);
            __m256d b = _mm256_loadu2_m128d(p + 3 * point_doubles + f, p + point_doubles + f);
            _mm256_storeu_pd(columns[f] + i, _mm256_unpacklo_pd(a, b));
            _mm256_storeu_pd(columns[f + 1] + i, _mm256_unpackhi_pd(a, b));
        }
    }
    for (; i < n; i++, p += point_doubles) {
        for (int f = 0; f < point_doubles; f++) columns[f][i] = p[f];
    }
}

__attribute__((target("avx2")))
static void quantize_ten_doubles(const double *points, size_t count, const routelog_field_spec *specs,
                                 size_t field_count, uint64_t absent_bits, routelog_field_summary *summaries) {
    double scratch[point_doubles][chunk_points];
    for (size_t k = 0; k < field_count; k++) summaries[k] = empty_summary();
    for (size_t from = 0; from < count; from += chunk_points) {
        size_t to = count - from < chunk_points ? count : from + chunk_points;
        double *columns[point_doubles];
        int into_copy[point_doubles] = {0};
        for (int f = 0; f < point_doubles; f++) columns[f] = scratch[f];
        for (size_t k = 0; k < field_count; k++) {
            size_t f = specs[k].field;
            if (specs[k].raw && !into_copy[f]) columns[f] = specs[k].raw + from, into_copy[f] = 1;
        }
        columns_of_points(points, from, to, columns);
        for (size_t k = 0; k < field_count; k++) {
            const double *column = columns[specs[k].field];
            // A second spec of the same field, with a copy of its own, still copies.
            int copied = specs[k].raw && column == specs[k].raw + from;
            quantize_avx2_at(column, 1, from, to, &specs[k], absent_bits, &summaries[k], !copied);
        }
    }
}

void routelog_quantize_fields(const double *points, size_t count, size_t stride, const routelog_field_spec *specs,
                              size_t field_count, uint64_t absent_bits, routelog_field_summary *summaries) {
    if (!routelog_has_avx2()) {
        routelog_quantize_fields_portable(points, count, stride, specs, field_count, absent_bits, summaries);
        return;
    }
    int ten_doubles = stride == point_doubles;
    for (size_t k = 0; k < field_count; k++) ten_doubles &= specs[k].field < point_doubles;
    if (ten_doubles) quantize_ten_doubles(points, count, specs, field_count, absent_bits, summaries);
    else quantize_in_chunks(quantize_avx2, points, count, stride, specs, field_count, absent_bits, summaries);
}
int routelog_quantize_fields_is_wide(void) { return routelog_has_avx2(); }
#else
void routelog_quantize_fields(const double *points, size_t count, size_t stride, const routelog_field_spec *specs,
                              size_t field_count, uint64_t absent_bits, routelog_field_summary *summaries) {
    routelog_quantize_fields_portable(points, count, stride, specs, field_count, absent_bits, summaries);
}
int routelog_quantize_fields_is_wide(void) { return 0; }
#endif
