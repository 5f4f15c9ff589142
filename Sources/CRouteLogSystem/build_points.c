// A load's last step (format-spec.md, "Quantization"): the points written from their
// columns. Each field of a point is its column's stored integer divided by the field's
// scale (the IEEE quotient one scalar division gives, as routelog_divide_integers
// computes it), or a double the caller has ready (a column with gaps, spread over its
// points; a field no point has). Every point is written once, whole: dividing into
// scratch doubles and then writing the points from them went over every value twice.
#include "CRouteLogSystem.h"
#include "processor_features.h"

#include <string.h>

#define FIELDS ROUTELOG_POINT_FIELDS

static inline double field_value(const routelog_point_source *s, size_t i) {
    if (!s->integers) return s->doubles[i];
    double q = (double)s->integers[i] / s->divisor;
    return s->offset != 0 ? q - s->offset : q;
}

// Points from..<to, a field at a time (a loop the compiler can widen, with no branch
// per point): the divider's quotients, in any rounding mode.
static void build_range(const routelog_point_source *sources, size_t from, size_t to, double *points) {
    for (int f = 0; f < FIELDS; f++) {
        const routelog_point_source *s = &sources[f];
        for (size_t i = from; i < to; i++) points[FIELDS * i + f] = field_value(s, i);
    }
}

static void build_portable(const routelog_point_source *sources, size_t count, double *points) {
    build_range(sources, 0, count, points);
}

#if defined(__x86_64__)
#include <immintrin.h>

// The quotients without the divider, as divide.c's divide_fma computes them (see there
// for why they are the correctly rounded ones: two steps of refinement, the second for
// the proof, since no input tried so far needs it): only for divisors of magnitude
// 2^-60 to 2^60 and rounding to nearest.
static int multiplies_serve(const routelog_point_source *sources) {
    if ((_mm_getcsr() & 0x6000) != 0) return 0;
    for (int f = 0; f < FIELDS; f++) {
        if (!sources[f].integers) continue;
        double m = sources[f].divisor < 0 ? -sources[f].divisor : sources[f].divisor;
        if (!(m >= 0x1p-60 && m <= 0x1p60)) return 0;
    }
    return 1;
}

// Four points from their fields (f[k] holds field k of the four): each point is two
// rows of four fields and a pair, so two 4×4 transposes and one 4×2.
__attribute__((target("avx2"), always_inline))
static inline void store_four_points(double *out, const __m256d *f) {
    for (int half = 0; half < 2; half++) {
        const __m256d *g = f + 4 * half;
        __m256d t0 = _mm256_unpacklo_pd(g[0], g[1]), t1 = _mm256_unpackhi_pd(g[0], g[1]);
        __m256d t2 = _mm256_unpacklo_pd(g[2], g[3]), t3 = _mm256_unpackhi_pd(g[2], g[3]);
        _mm256_storeu_pd(out + 4 * half, _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm256_storeu_pd(out + FIELDS + 4 * half, _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm256_storeu_pd(out + 2 * FIELDS + 4 * half, _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm256_storeu_pd(out + 3 * FIELDS + 4 * half, _mm256_permute2f128_pd(t1, t3, 0x31));
    }
    __m256d u0 = _mm256_unpacklo_pd(f[8], f[9]), u1 = _mm256_unpackhi_pd(f[8], f[9]);
    _mm_storeu_pd(out + 8, _mm256_castpd256_pd128(u0));
    _mm_storeu_pd(out + FIELDS + 8, _mm256_castpd256_pd128(u1));
    _mm_storeu_pd(out + 2 * FIELDS + 8, _mm256_extractf128_pd(u0, 1));
    _mm_storeu_pd(out + 3 * FIELDS + 8, _mm256_extractf128_pd(u1, 1));
}

// One field's quotients for a batch of points, into `out` (as divide.c's divide_fma
// computes them, then less the offset where there is one). Returns the lanes' OR of
// v + 2^51, which is below 2^52 (unsigned) exactly when every v is in -2^51..<2^51,
// the range the conversion takes exactly.
__attribute__((target("avx2,fma"), always_inline))
static inline __m256i divide_batch(const int64_t *values, size_t count, double divisor, double offset, double *out,
                                   const int subtracts) {
    const __m256d d = _mm256_set1_pd(divisor), y = _mm256_set1_pd(1.0 / divisor), o = _mm256_set1_pd(offset);
    __m256i magic_bits = _mm256_set1_epi64x(0x4338000000000000LL), half_range = _mm256_set1_epi64x(1LL << 51);
    // Opaque to the compiler, which otherwise loads both from memory again for every
    // four values.
    __asm__("" : "+x"(magic_bits), "+x"(half_range));
    const __m256d magic = _mm256_castsi256_pd(magic_bits);
    __m256i out_of_range = _mm256_setzero_si256();
    for (size_t j = 0; j < count; j += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(values + j));
        out_of_range = _mm256_or_si256(out_of_range, _mm256_add_epi64(v, half_range));
        __m256d x = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(v, magic_bits)), magic);
        __m256d r = _mm256_mul_pd(x, y);
        r = _mm256_fmadd_pd(_mm256_fnmadd_pd(r, d, x), y, r);
        r = _mm256_fmadd_pd(_mm256_fnmadd_pd(r, d, x), y, r);
        _mm256_storeu_pd(out + j, subtracts ? _mm256_sub_pd(r, o) : r);
    }
    return out_of_range;
}

// Batches of 64 points in two steps: each field's doubles for the batch (its quotients
// into a buffer in the first-level cache, or the caller's doubles as they are), then the
// points four at a time from them. Done in one loop, the ten fields' constants and
// pointers did not fit the registers, and the loop spent a third of its instructions
// fetching them again. An integer beyond ±2^51 is only noted; a batch with one is
// written again the divider's way, so one branch serves 64 points.
#define BATCH 64

__attribute__((target("avx2,fma")))
static void build_fma(const routelog_point_source *sources, size_t count, double *restrict points) {
    double quotients[FIELDS][BATCH] __attribute__((aligned(32)));
    const __m256i beyond = _mm256_set1_epi64x((long long)~((1ULL << 52) - 1));
    size_t i = 0;
    for (; i + BATCH <= count; i += BATCH) {
        const double *field[FIELDS];
        __m256i out_of_range = _mm256_setzero_si256();
        for (int f = 0; f < FIELDS; f++) {
            const routelog_point_source *s = &sources[f];
            if (!s->integers) {
                field[f] = s->doubles + i;
                continue;
            }
            __m256i range = s->offset != 0
                ? divide_batch(s->integers + i, BATCH, s->divisor, s->offset, quotients[f], 1)
                : divide_batch(s->integers + i, BATCH, s->divisor, 0, quotients[f], 0);
            out_of_range = _mm256_or_si256(out_of_range, range);
            field[f] = quotients[f];
        }
        if (__builtin_expect(!_mm256_testz_si256(out_of_range, beyond), 0)) {
            build_range(sources, i, i + BATCH, points);
            continue;
        }
        for (size_t g = 0; g < BATCH; g += 4) {
            __m256d four[FIELDS];
            for (int f = 0; f < FIELDS; f++) four[f] = _mm256_loadu_pd(field[f] + g);
            store_four_points(points + FIELDS * (i + g), four);
        }
    }
    build_range(sources, i, count, points);
}

void routelog_build_points(const routelog_point_source *sources, size_t count, void *points) {
    if (routelog_has_avx2() && routelog_has_fma() && multiplies_serve(sources)) build_fma(sources, count, points);
    else build_portable(sources, count, points);
}
int routelog_build_points_is_wide(void) { return routelog_has_avx2() && routelog_has_fma(); }
#else
void routelog_build_points(const routelog_point_source *sources, size_t count, void *points) {
    build_portable(sources, count, points);
}
int routelog_build_points_is_wide(void) { return 0; }
#endif

void routelog_build_points_portable(const routelog_point_source *sources, size_t count, void *points) {
    build_portable(sources, count, points);
}
