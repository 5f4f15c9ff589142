// Runs every C kernel of the library on the same inputs and prints a digest of what
// each gives: `make check-arm64` builds this for x86-64 (where the kernels take their
// AVX2, BMI2 and FMA paths) and for arm64 (the paths an iPhone, a Watch or an Apple
// silicon Mac takes), runs the second under qemu, and compares the two listings line by
// line. A store written on one machine is read, compacted and summarised on another, so
// the integers, doubles, bytes and choices must be the same on both, to the bit.
//
// On each machine the program also checks what it can alone: the dispatching function
// gives what its portable twin gives, and the streams written decode back to the values
// they were written from. It exits 1 at the first disagreement, naming it.
//
// The inputs come from a fixed seed (splitmix64), shaped like a store's: walks of
// coordinates, residuals whose sizes fall off geometrically (and in a quarter of the
// draws take any size up to the limit, so that values of 2^48 and more, which take the
// slow and long paths, come up often), zero runs of every length around the scan's
// 64-token words and past the longest run token, streams read with the reach short of
// their end and resumed, damaged streams, and the hostile values (NaN, infinities, the
// absent pattern, values at 2^51 and beyond) the Swift tests feed the same kernels. Each
// random draw is a statement of its own or sequenced by a comma, never two in one
// expression whose order C leaves open, so that every compiler draws the same inputs.
//
// On stderr it lists which wide paths the processor gave (`paths: ...`), which
// check-arm64.sh holds to what each build must take.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CRouteLogSystem.h"

static uint64_t seed = 0x526F7574654C6F67ull;  // "RouteLog"

static uint64_t next_random(void) {
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return n ? next_random() % n : 0; }
static double uniform(double low, double high) { return low + (high - low) * (double)(next_random() >> 11) * 0x1p-53; }

// A value of at most `bits` bits (bits <= 63): in three draws of four its size falls
// off geometrically, in the fourth it is any size up to `bits`.
static int64_t geometric(unsigned bits) {
    unsigned size = 0;
    if (below(4) == 0) {
        size = (unsigned)below(bits + 1);
    } else {
        while (size < bits && (next_random() & 3) != 0) size++;
    }
    uint64_t magnitude = size >= 63 ? next_random() >> 1 : next_random() & ((1ull << size) - 1);
    uint64_t sign = next_random() & 1;
    return (int64_t)(sign ? 0 - magnitude : magnitude);
}

// FNV-1a, 64 bits: one digest per kernel, over everything it wrote or returned.
typedef struct {
    uint64_t h;
    size_t calls;
} digest;

static void mix(digest *d, const void *bytes, size_t count) {
    const uint8_t *p = bytes;
    for (size_t i = 0; i < count; i++) d->h = (d->h ^ p[i]) * 0x100000001B3ull;
}
static void mix_u64(digest *d, uint64_t v) { mix(d, &v, sizeof v); }

static void report(const char *name, const digest *d) {
    printf("%-28s %6zu calls  %016llx\n", name, d->calls, (unsigned long long)d->h);
}

static void fail(const char *what, size_t call) {
    fprintf(stderr, "kernel-digest: %s (call %zu)\n", what, call);
    exit(1);
}

static const double hostile[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 0.49999999999999994, -0.5, 0.5, 1.5, -1.5,
                                 2.25e15, -2.25e15, 4.6e18, -4.7e18, 1e300, 4.9406564584124654e-324,
                                 225179981.3, 225179981.5, -300000000.3, 2250000000000.7};
#define HOSTILE_COUNT (sizeof hostile / sizeof hostile[0])
static const uint64_t absent_bits = 0x7FF8000000DEAD01ull;  // any quiet NaN pattern the tests name absent

static double sometimes_hostile(double usual, unsigned one_in) {
    if (below(one_in) != 0) return usual;
    if (below(8) == 0) {
        double absent;
        memcpy(&absent, &absent_bits, 8);
        return absent;
    }
    return hostile[below(HOSTILE_COUNT)];
}

static void check_crc32c(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    uint8_t *bytes = malloc(70000 + 16);
    for (size_t i = 0; i < 70016; i++) bytes[i] = (uint8_t)next_random();
    for (size_t length = 0; length < 70000; length = length < 300 ? length + 1 : length * 3 + 17) {
        for (size_t shift = 0; shift < 8; shift += 3) {
            uint32_t start = (uint32_t)d.h;  // extending a CRC already under way
            uint32_t crc = routelog_crc32c_extend(start, bytes + shift, length);
            if (crc != routelog_crc32c_extend_portable(start, bytes + shift, length)) fail("crc32c: the two paths differ", d.calls);
            mix(&d, &crc, 4);
            d.calls++;
        }
    }
    free(bytes);
    report("crc32c", &d);
}

static void check_divide(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    const double divisors[] = {1e7, 1000, 100, 10, 1, 3, 0.1, -1000, 1e-70, 1e70, 7e-300};
    enum { n = 1000 };
    int64_t values[n];
    double out[n], twin[n];
    for (size_t v = 0; v < sizeof divisors / sizeof divisors[0]; v++) {
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < n; i++) {
                switch (round % 4) {
                case 0: values[i] = (int64_t)below(3600000000ull) - 1800000000; break;  // longitudes at 1e7
                case 1: values[i] = geometric(51); break;
                case 2: values[i] = geometric(63); break;  // past 2^51: the divider's way
                default: {
                    uint64_t shift = next_random() & 63, magnitude = next_random() >> shift, sign = next_random() & 1;
                    values[i] = (int64_t)(sign ? 0 - magnitude : magnitude);
                }
                }
            }
            size_t count = n - below(40);
            routelog_divide_integers(values, count, divisors[v], out);
            routelog_divide_integers_portable(values, count, divisors[v], twin);
            if (memcmp(out, twin, count * sizeof(double)) != 0) fail("divide: the two paths differ", d.calls);
            for (size_t i = 0; i < count; i++) {
                if (out[i] != (double)values[i] / divisors[v]) fail("divide: not the quotient", d.calls);
            }
            mix(&d, out, count * sizeof(double));
            d.calls++;
        }
    }
    report("divide_integers", &d);
}

static void check_build_points(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 300, fields = ROUTELOG_POINT_FIELDS };
    const double divisors[] = {1e7, 1000, 100, 1, 3, 0.1, -1000, 1e-70, 1e70};
    static int64_t integers[fields][n];
    static double doubles[fields][n], out[n * fields], twin[n * fields];
    for (int round = 0; round < 60; round++) {
        routelog_point_source sources[fields];
        for (int f = 0; f < fields; f++) {
            if (f > 2 && below(3) == 0) {
                for (int i = 0; i < n; i++) doubles[f][i] = sometimes_hostile(uniform(-1e4, 1e4), 3);
                sources[f] = (routelog_point_source){NULL, doubles[f], 1, 0};
                continue;
            }
            for (int i = 0; i < n; i++) {
                // Past 2^51 in a third of the rounds, in about one value of 64.
                integers[f][i] = round % 3 == 2 && below(64) == 0 ? geometric(63) : geometric(51);
            }
            double divisor = f < 2 ? 1e7 : f == 2 ? 1000 : divisors[below(sizeof divisors / sizeof divisors[0])];
            sources[f] = (routelog_point_source){integers[f], NULL, divisor, f == 2 ? 978307200.0 : 0};
        }
        size_t count = n - below(70);
        routelog_build_points(sources, count, out);
        routelog_build_points_portable(sources, count, twin);
        if (memcmp(out, twin, count * fields * sizeof(double)) != 0) fail("build_points: the two paths differ", d.calls);
        for (size_t i = 0; i < count; i++) {
            for (int f = 0; f < fields; f++) {
                double expected = sources[f].doubles ? doubles[f][i] : (double)integers[f][i] / sources[f].divisor - sources[f].offset;
                if (memcmp(&out[i * fields + f], &expected, 8) != 0) fail("build_points: not the scalar steps", d.calls);
            }
        }
        mix(&d, out, count * fields * sizeof(double));
        d.calls++;
    }
    report("build_points", &d);
}

static void check_farthest(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 3000 };
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    for (int shape = 0; shape < 6; shape++) {
        double px = 0, py = 0;
        for (int i = 0; i < n; i++) {
            switch (shape) {
            case 0: px += uniform(-5, 5), py += uniform(-5, 5); break;  // a walk, in metres
            case 1: px = (double)i, py = 0; break;                      // a straight line: every key ties
            case 2: px = 1234.5, py = -77; break;                       // one place over and over
            // Nearly on a line, far from the origin: keys that differ in their last bits,
            // where a fused multiply-add would rank them otherwise.
            case 3: px = 0.1 * i + 1e5, py = 0.7 * px; break;
            case 4: px = uniform(-1e7, 1e7), py = uniform(-1e7, 1e7); break;
            default:  // a walk with non-finite points in it
                px += uniform(-5, 5), py += uniform(-5, 5);
                if (below(50) == 0) px = below(2) ? NAN : INFINITY;
            }
            x[i] = px, y[i] = py;
        }
        for (int span = 0; span < 300; span++) {
            size_t a = below(n - 2), b = a + 2 + below(n - a - 2);  // a point strictly between
            size_t best = routelog_farthest_point(x, y, a, b);
            if (best != routelog_farthest_point_portable(x, y, a, b)) fail("farthest: the two paths differ", d.calls);
            mix_u64(&d, best);
            d.calls++;
        }
    }
    free(x), free(y);
    report("farthest_point", &d);
}

static void check_short_steps(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 2000 };
    double lat[n], lon[n], lengths[n], twin[n];
    for (int round = 0; round < 10; round++) {
        // Near a pole in some rounds, so that a step's middle may pass 90.
        double a = round % 3 == 2 ? 89.995 : uniform(-89, 89), o = uniform(-179, 179);
        static const double edges[] = {0.02, -0.02, 0.0200000000000001, 0.03, -0.5, NAN, INFINITY, 0};
        for (int i = 0; i < n; i++) {
            // Steps at and past the 0.02 degree limit, and non-finite ones, now and then;
            // from 0 now and then, so that a step is the limit exactly (0 + 0.02 is 0.02).
            if (i + 1 < n && below(40) == 0) {
                lat[i] = 0, lon[i] = 0;
                a = edges[below(8)], o = edges[below(8)];
                lat[++i] = a, lon[i] = o;
                if (!(a == a) || a > 1e6 || a < -1e6) a = 0;
                if (!(o == o) || o > 1e6 || o < -1e6) o = 0;
                continue;
            }
            double step_lat = below(20) == 0 ? edges[below(8)] : uniform(-1e-4, 1e-4);
            double step_lon = below(20) == 0 ? edges[below(8)] : uniform(-1e-4, 1e-4);
            a += step_lat, o += step_lon;
            if (!(a == a) || a > 1e6 || a < -1e6) a = uniform(-89, 89);  // start again after a NaN
            if (!(o == o) || o > 1e6 || o < -1e6) o = uniform(-179, 179);
            lat[i] = a, lon[i] = o;
        }
        size_t count = n - below(9);
        routelog_short_step_lengths(lat, lon, count, lengths);
        routelog_short_step_lengths_portable(lat, lon, count, twin);
        if (count > 1 && memcmp(lengths + 1, twin + 1, (count - 1) * sizeof(double)) != 0) {
            fail("short steps: the two paths differ", d.calls);
        }
        if (count > 1) mix(&d, lengths + 1, (count - 1) * sizeof(double));
        d.calls++;
    }
    report("short_step_lengths", &d);
}

// Ten fields a point, as a TrackPoint lies: three required, seven optional.
static void check_quantize(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { fields = 10, most = 1100, widest = 11 };
    double *points = malloc(most * widest * sizeof(double));
    int64_t *values[2][fields];
    enum { copied = 4 };  // the required fields' raw copies and one optional field's
    double *raw[2][copied];
    for (int p = 0; p < 2; p++) {
        for (int f = 0; f < fields; f++) values[p][f] = malloc(most * sizeof(int64_t));
        for (int f = 0; f < copied; f++) raw[p][f] = malloc(most * sizeof(double));
    }
    const double scales[fields] = {1e7, 1e7, 1000, 100, 100, 100, 100, 100, 10, 10};
    const double lows[fields] = {-90, -180, -978307200, -1e6, 0, 0, 0, -1e6, 0, 0};
    const double highs[fields] = {90, 180, INFINITY, 1e6, 1e6, 1e6, 1e6, 1e6, 1000, 1000};
    for (int round = 0; round < 60; round++) {
        size_t count = round < 20 ? (size_t)round : below(most);
        // Points of ten doubles (columns made a chunk at a time), and of eleven (each
        // field read where it lies): the same values either way.
        size_t stride = round % 5 == 4 ? widest : 10;
        unsigned one_in = round % 3 == 0 ? 2 : 400;
        double lat = uniform(-80, 80), lon = uniform(-170, 170), t = uniform(0, 8e8);
        for (size_t i = 0; i < count; i++) {
            lat += uniform(-1e-4, 1e-4), lon += uniform(-1e-4, 1e-4), t += 1;
            double *q = points + i * stride;
            q[0] = sometimes_hostile(lat, one_in), q[1] = sometimes_hostile(lon, one_in), q[2] = sometimes_hostile(t, one_in);
            for (int f = 3; f < fields; f++) q[f] = sometimes_hostile(uniform(0, 300), f == 9 ? 2 : one_in);
            if (stride > (size_t)fields) q[fields] = -1;  // a double that is no field
            // Every other round, optional fields that whole chunks of 256 points lack:
            // everywhere, in the first 300 points, in all but each chunk's last point, and
            // (the copied field) in the first chunk but for a value one bit from absent.
            if (round % 2 == 1) {
                double absent, nearly;
                uint64_t nearly_bits = absent_bits ^ 1;
                memcpy(&absent, &absent_bits, 8), memcpy(&nearly, &nearly_bits, 8);
                q[5] = absent;
                if (i < 300) q[6] = absent;
                if (i % 256 != 255) q[7] = absent;
                if (i < 256) q[3] = i == 200 && round % 4 == 1 ? nearly : absent;
            }
        }
        routelog_field_summary summaries[2][fields];
        for (int p = 0; p < 2; p++) {
            routelog_field_spec specs[fields];
            for (int f = 0; f < fields; f++) {
                routelog_field_spec s = {(size_t)f, f >= 3, f == 2 ? 978307200.0 : 0.0, scales[f], lows[f], highs[f],
                                         values[p][f], f < copied ? raw[p][f] : 0};
                specs[f] = s;
            }
            if (p == 0) routelog_quantize_fields(points, count, stride, specs, fields, absent_bits, summaries[p]);
            else routelog_quantize_fields_portable(points, count, stride, specs, fields, absent_bits, summaries[p]);
        }
        for (int f = 0; f < fields; f++) {
            if (memcmp(values[0][f], values[1][f], count * sizeof(int64_t)) != 0) fail("quantize: the two paths differ", d.calls);
            const routelog_field_summary *a = &summaries[0][f], *b = &summaries[1][f];
            if (a->min != b->min || a->max != b->max || a->absent != b->absent || a->in_range != b->in_range) {
                fail("quantize: the summaries differ", d.calls);
            }
            mix(&d, values[0][f], count * sizeof(int64_t));
            mix_u64(&d, (uint64_t)a->min), mix_u64(&d, (uint64_t)a->max), mix_u64(&d, a->absent), mix_u64(&d, (uint64_t)a->in_range);
        }
        for (int f = 0; f < copied; f++) {
            if (memcmp(raw[0][f], raw[1][f], count * sizeof(double)) != 0) fail("quantize: the raw copies differ", d.calls);
            for (size_t i = 0; i < count; i++) {
                if (memcmp(&raw[0][f][i], points + i * stride + f, 8) != 0) fail("quantize: a raw copy is not the value", d.calls);
            }
            mix(&d, raw[0][f], count * sizeof(double));
        }
        d.calls++;
    }
    for (int p = 0; p < 2; p++) {
        for (int f = 0; f < fields; f++) free(values[p][f]);
        for (int f = 0; f < copied; f++) free(raw[p][f]);
    }
    free(points);
    report("quantize_fields", &d);
}

static void check_range(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 700 };
    int64_t lat[n], lon[n], time[n];
    routelog_point_ranges ranges = {900000000, 1800000000, 4102444800000};
    for (int round = 0; round < 400; round++) {
        size_t count = below(n);
        for (size_t i = 0; i < count; i++) {
            lat[i] = (int64_t)below(1800000001) - 900000000;
            lon[i] = (int64_t)below(3600000001) - 1800000000;
            time[i] = (int64_t)below(4102444800001);
        }
        for (int bad = (int)below(3); bad > 0 && count > 0; bad--) {
            size_t i = below(count);
            switch (below(4)) {
            case 0: lat[i] = (next_random() & 1) ? 900000001 : -900000001; break;
            case 1: lon[i] = INT64_MIN; break;
            case 2: time[i] = -1; break;
            default: time[i] = 4102444800001;
            }
        }
        const int64_t *times = round % 5 == 0 ? 0 : time;
        size_t first = routelog_first_point_out_of_range(lat, lon, times, count, &ranges);
        if (first != routelog_first_point_out_of_range_portable(lat, lon, times, count, &ranges)) {
            fail("range check: the two paths differ", d.calls);
        }
        mix_u64(&d, first);
        d.calls++;
    }
    report("first_point_out_of_range", &d);
}

// The optional columns' limits: values within low...high with a few past them.
static void check_value_outside(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 700 };
    int64_t values[n];
    for (int round = 0; round < 400; round++) {
        size_t count = below(n);
        int64_t high = (int64_t)below(1000000001), low = round % 2 ? -high : 0;
        for (size_t i = 0; i < count; i++) values[i] = low + (int64_t)below((uint64_t)(high - low) + 1);
        for (int bad = (int)below(3); bad > 0 && count > 0; bad--) {
            size_t i = below(count);
            switch (below(4)) {
            case 0: values[i] = high + 1; break;
            case 1: values[i] = low - 1; break;
            case 2: values[i] = INT64_MIN; break;
            default: values[i] = INT64_MAX;
            }
        }
        size_t first = routelog_first_value_outside(values, count, low, high);
        if (first != routelog_first_value_outside_portable(values, count, low, high)) {
            fail("value limits: the two paths differ", d.calls);
        }
        mix_u64(&d, first);
        d.calls++;
    }
    report("first_value_outside", &d);
}

// Running sums of order 1 and 2 over residuals of every size (the wrapping too), every
// count around the groups of four.
static void check_running_sums(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 300 };
    int64_t wide[n], plain[n];
    for (int round = 0; round < 600; round++) {
        size_t count = round < 40 ? (size_t)(round % 20) : below(n);
        int order = round % 4;  // 3 leaves the values as they are
        for (size_t i = 0; i < count; i++) {
            switch (below(4)) {
            case 0: wide[i] = (int64_t)below(3) - 1; break;
            case 1: wide[i] = (int64_t)below(2000001) - 1000000; break;
            case 2: wide[i] = below(2) ? INT64_MAX - (int64_t)below(4) : INT64_MIN + (int64_t)below(4); break;
            default: wide[i] = (int64_t)(below(1ull << 62) * 4 + below(4));
            }
            plain[i] = wide[i];
        }
        routelog_running_sums(wide, count, order);
        routelog_running_sums_portable(plain, count, order);
        for (size_t i = 0; i < count; i++) {
            if (wide[i] != plain[i]) fail("running sums: the two paths differ", d.calls);
        }
        mix(&d, wide, count * sizeof(int64_t));
        d.calls++;
    }
    report("running_sums", &d);
}

// The token of u, as format-spec.md gives it: u itself below 16, else 4e plus the two
// bits under the top bit e.
static unsigned token_of(uint64_t u) {
    if (u < 16) return (unsigned)u;
    unsigned e = 63u - (unsigned)__builtin_clzll(u);
    return 4 * e + (unsigned)((u >> (e - 2)) & 3);
}
static unsigned extra_bits(unsigned token) { return token < 16 ? 0 : token / 4 - 2; }
static uint64_t token_base(unsigned token) {
    return token < 16 ? token : (uint64_t)(4 + token % 4) << (token / 4 - 2);
}

// Residuals with zero runs of every length around the scan's words, and the sizes of a
// column's second differences between them.
static size_t make_residuals(uint64_t *u, size_t most, unsigned bits) {
    size_t k = below(most);
    for (size_t i = 0; i < k;) {
        if (below(3) == 0) {
            size_t run = below(4) == 0 ? below(200) : below(6);
            for (; run > 0 && i < k; run--) u[i++] = 0;
        } else {
            u[i++] = (uint64_t)geometric(bits);
        }
    }
    return k;
}

// The exact division by 2^shift × odd (Codec/V2/ResidualModel.swift, ExactDivision):
// the odd part's inverse mod 2^64 by Newton's steps, and the quotients that fit.
static routelog_exact_division exact_division(uint64_t odd, int64_t shift) {
    uint64_t inverse = odd;
    for (int step = 0; step < 5; step++) inverse *= 2 - odd * inverse;
    int64_t divisor = (int64_t)(odd << shift);
    routelog_exact_division division = {shift, (int64_t)inverse, INT64_MIN / divisor, INT64_MAX / divisor};
    return division;
}

static void check_tokens(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 3000 };
    uint64_t *u = malloc(n * 8), *twin = malloc(n * 8), *start = malloc(n * 8);
    uint8_t *tokens = malloc(n), *twin_tokens = malloc(n);
    uint32_t counts[1024], twin_counts[1024];
    for (int round = 0; round < 200; round++) {
        unsigned bits = round % 7 == 6 ? 63 : 4 + (unsigned)below(30);
        size_t k = make_residuals(start, n, bits);
        routelog_exact_division division, *by = 0;
        if (round % 2) {
            uint64_t odd = 2 * below(500) + 1;
            division = exact_division(odd, (int64_t)below(41));
            int64_t divisor = (int64_t)(odd << division.shift);  // below 2^50
            by = &division;
            for (size_t i = 0; i < k; i++) {
                // Multiples of the divisor, and now and then a value that is not one.
                if (below(50) != 0) start[i] = (uint64_t)((int64_t)start[i] >> (8 + division.shift)) * (uint64_t)divisor;
                // A multiple but for one bit under the divisor's power of two.
                if (division.shift > 0 && below(50) == 0) start[i] += 1ull << below((uint64_t)division.shift);
            }
        }
        memcpy(u, start, k * 8), memcpy(twin, start, k * 8);
        int exact = routelog_tokenize_residuals(u, k, by, tokens, counts);
        int twin_exact = routelog_tokenize_residuals_portable(twin, k, by, twin_tokens, twin_counts);
        if (exact != twin_exact || memcmp(u, twin, k * 8) || memcmp(tokens, twin_tokens, k) ||
            memcmp(counts, twin_counts, 256 * 4)) {
            fail("tokens: the two paths differ", d.calls);
        }
        for (size_t i = 0; i < k; i++) {
            if (tokens[i] != token_of(u[i])) fail("tokens: not the token of u", d.calls);
        }
        mix_u64(&d, (uint64_t)exact), mix(&d, u, k * 8), mix(&d, tokens, k), mix(&d, counts, 256 * 4);
        // The costs of each order over the same values taken as a column.
        int64_t biases[3], costs[3] = {0, 0, 0}, twin_costs[3] = {0, 0, 0};
        biases[0] = geometric(20);
        biases[1] = geometric(8);
        biases[2] = geometric(4);
        if (k > 2) {
            routelog_order_costs((const int64_t *)start, 2, k, biases, costs);
            routelog_order_costs_portable((const int64_t *)start, 2, k, biases, twin_costs);
            if (memcmp(costs, twin_costs, sizeof costs) != 0) fail("order costs: the two paths differ", d.calls);
        }
        mix(&d, costs, sizeof costs);
        d.calls++;
    }
    free(u), free(twin), free(start), free(tokens), free(twin_tokens);
    report("tokenize, order_costs", &d);
}

// One code for every symbol: 9 bits, the symbol itself (value tokens 0...255, then run
// tokens 256 + j for runs of 2^j...2^(j+1) - 1). A complete code is not needed for
// the loops: each reads the code in the window's low bits and looks it up.
enum { code_bits = 9, symbols = 276 };
static uint64_t send[symbols], masks[symbols], entries[1 << code_bits];

static void make_code(void) {
    for (unsigned s = 0; s < symbols; s++) {
        unsigned extra = s < 256 ? extra_bits(s) : s - 256;
        uint64_t base = s < 256 ? token_base(s) : 1ull << extra;
        send[s] = s | (uint64_t)code_bits << 32 | (uint64_t)extra << 40 | (uint64_t)(code_bits + extra) << 48;
        masks[s] = extra == 64 ? ~0ull : (1ull << extra) - 1;
        // The entry layout of Codec/V2/HuffmanCode.swift (HuffmanDecodeTable).
        uint64_t entry = base >= (1ull << 48)
                             ? (uint64_t)code_bits | 1ull << 7 | (uint64_t)code_bits << 8 | (uint64_t)s << 16
                             : (uint64_t)(code_bits + extra) | (uint64_t)code_bits << 8 | (s >= 256 ? 1ull << 14 : 0) |
                                   base << 16;
        entries[s] = entry;
    }
    for (unsigned s = symbols; s < (1u << code_bits); s++) entries[s] = 1ull << 7;  // no code starts here
}

static unsigned longest_bits(const uint8_t *tokens, size_t k) {
    unsigned longest = 0;
    for (size_t i = 0; i < k; i++) {
        unsigned bits = code_bits + extra_bits(tokens[i]);
        if (bits > longest) longest = bits;
    }
    return longest;
}

// r = bias + divisor × unzigzag(u), then the order's running sums: the value the
// decoders give for residual i.
static void integrate(const uint64_t *u, size_t k, int64_t bias, int64_t divisor, int order, int64_t *out) {
    uint64_t value = 0, delta = 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t r = (uint64_t)bias + ((u[i] >> 1) ^ (0 - (u[i] & 1))) * (uint64_t)divisor;
        if (order == 2) delta += r;
        value += order == 0 ? r - value : (order == 1 ? r : delta);
        out[i] = (int64_t)value;
    }
}

// n bits (n <= 64) of a stream from bit `position` on, bit 0 of each byte first.
static uint64_t read_bits(const uint8_t *bytes, int64_t position, unsigned n) {
    uint64_t v = 0;
    for (unsigned b = 0; b < n; b++) {
        int64_t at = position + b;
        v |= (uint64_t)((bytes[at >> 3] >> (at & 7)) & 1) << b;
    }
    return v;
}

// Residual r as the stream's order makes it a value: r (order 0), or the next running
// sum from the stream's value and delta (updated).
static int64_t next_sum(routelog_run_stream *stream, uint64_t r) {
    if (stream->order == 0) return (int64_t)r;
    if (stream->order == 2) stream->delta = (int64_t)((uint64_t)stream->delta + r);
    stream->value = (int64_t)((uint64_t)stream->value + (stream->order == 1 ? r : (uint64_t)stream->delta));
    return stream->value;
}

// A run stream read whole: `loop` (a C decoder) as far as it goes, and each token it
// stops before (a value whose base no entry holds, or a run) read here, as the
// library's checked loop reads it; a run past k, a window with no code or the end
// stop it. Returns the residuals written, with *position after them.
static size_t read_run_stream(size_t (*loop)(routelog_run_stream *, int64_t *, size_t), routelog_run_stream stream,
                              int64_t *out, size_t k, int64_t *position, routelog_run_stream *sums) {
    size_t i = 0;
    for (;;) {
        i += loop(&stream, out + i, k - i);
        if (i >= k || stream.position >= stream.limit) break;
        unsigned symbol = (unsigned)read_bits(stream.bytes, stream.position, code_bits);
        if (symbol >= symbols) break;  // no code starts here
        unsigned extra = symbol < 256 ? extra_bits(symbol) : symbol - 256;
        uint64_t base = symbol < 256 ? token_base(symbol) : 1ull << extra;
        uint64_t u = base + read_bits(stream.bytes, stream.position + code_bits, extra);
        if (symbol >= 256) {
            if (u > k - i) break;  // a run past the column's last value
            for (uint64_t r = 0; r < u; r++) out[i++] = next_sum(&stream, (uint64_t)stream.bias);
        } else {
            out[i++] = next_sum(&stream, (uint64_t)stream.bias + ((u >> 1) ^ (0 - (u & 1))) * (uint64_t)stream.divisor);
        }
        stream.position += code_bits + extra;
    }
    *position = stream.position;
    *sums = stream;
    return i;
}

// Both run decoders over `copy` (a stream of `length` bytes and zero padding): the same
// residuals and end, which must be the `expected` ones when the stream is whole.
static void check_run_read(digest *d, const uint8_t *copy, size_t length, size_t k, int64_t bias, int64_t divisor,
                           const int64_t *expected, int64_t *decoded, int64_t *twin_decoded, const char *what) {
    routelog_run_stream stream = {copy, 0, (int64_t)length * 8, entries, (1u << code_bits) - 1, bias, divisor, 0, 0, 0};
    int64_t end = 0, twin_end = 0;
    routelog_run_stream after, twin_after;
    size_t done = read_run_stream(routelog_decode_run_stream, stream, decoded, k, &end, &after);
    size_t twin_done = read_run_stream(routelog_decode_run_stream_portable, stream, twin_decoded, k, &twin_end, &twin_after);
    if (done != twin_done || end != twin_end || memcmp(decoded, twin_decoded, done * 8) != 0) {
        fprintf(stderr, "kernel-digest: %s\n", what);
        fail("run decoder: the two paths differ", d->calls);
    }
    if (expected && (done != k || memcmp(decoded, expected, k * 8) != 0)) fail("run decoder: not the residuals written", d->calls);
    mix_u64(d, done), mix(d, decoded, done * 8), mix_u64(d, (uint64_t)end);
    d->calls++;
}

// Both four-stream decoders from `streams`: the same values, positions and sums.
static size_t check_four_read(digest *d, routelog_four_streams *streams, int64_t *out, int64_t *twin_out, size_t k) {
    routelog_four_streams twin = *streams;
    size_t done = routelog_decode_four_streams(streams, out, k);
    size_t twin_done = routelog_decode_four_streams_portable(&twin, twin_out, k);
    if (done != twin_done || memcmp(out, twin_out, done * 8) != 0 ||
        memcmp(streams->positions, twin.positions, sizeof twin.positions) != 0 || streams->value != twin.value ||
        streams->delta != twin.delta) {
        fail("four-stream decoder: the two paths differ", d->calls);
    }
    mix_u64(d, done), mix(d, out, done * 8), mix(d, streams->positions, sizeof streams->positions);
    mix_u64(d, (uint64_t)streams->value), mix_u64(d, (uint64_t)streams->delta);
    d->calls++;
    return done;
}

// Zero bytes after a block in the copy a load decodes from (BlockCursor.padding).
enum { library_padding = 96 };

static void check_streams(void) {
    digest writes = {0xCBF29CE484222325ull, 0}, runs = {0xCBF29CE484222325ull, 0};
    digest four = {0xCBF29CE484222325ull, 0}, one = {0xCBF29CE484222325ull, 0};
    enum { n = 4000, pad = 1024 };
    uint64_t *u = malloc(n * 8), *scratch = malloc(n * 8);
    uint8_t *tokens = malloc(n);
    uint32_t counts[1024], run_counts[32];
    int64_t *expected = malloc(n * 8), *residuals = malloc(n * 8), *decoded = malloc((n + 8) * 8),
            *twin_decoded = malloc((n + 8) * 8);
    size_t region = n * 10 + 64;
    uint8_t *bytes = malloc(4 * region + pad), *twin = malloc(4 * region + pad), *copy;
    make_code();
    for (int round = 0; round < 300; round++) {
        memset(bytes, 0, 4 * region + pad), memset(twin, 0, 4 * region + pad);
        unsigned bits = round % 10 == 9 ? 63 : 2 + (unsigned)below(40);
        size_t k = make_residuals(scratch, n, bits);
        memcpy(u, scratch, k * 8);
        routelog_tokenize_residuals(u, k, 0, tokens, counts);
        int64_t bias = geometric(30), divisor = 1;
        switch (below(4)) {
        case 0: divisor = (int64_t)(1 + below(1000)); break;
        case 1: divisor = -(int64_t)(1 + below(1000)); break;
        default: break;  // 1, as most columns have it
        }
        int order = (int)below(3);
        integrate(u, k, bias, divisor, order, expected);
        integrate(u, k, bias, divisor, 0, residuals);

        // Four streams, two or one: the same bytes on both paths.
        size_t count = (size_t)1 << below(3);
        if (round % 2 == 0) count = 4;
        uint8_t *out[4] = {bytes, bytes + region, bytes + 2 * region, bytes + 3 * region};
        uint8_t *twin_out[4] = {twin, twin + region, twin + 2 * region, twin + 3 * region};
        size_t lengths[4] = {0, 0, 0, 0}, twin_lengths[4] = {0, 0, 0, 0};
        unsigned longest = longest_bits(tokens, k);
        routelog_write_residual_streams(u, tokens, k, count, send, masks, longest, out, lengths);
        routelog_write_residual_streams_portable(u, tokens, k, count, send, masks, longest, twin_out, twin_lengths);
        for (size_t s = 0; s < count; s++) {
            if (lengths[s] != twin_lengths[s] || memcmp(out[s], twin_out[s], lengths[s]) != 0) {
                fail("stream writer: the two paths differ", writes.calls);
            }
            mix_u64(&writes, lengths[s]), mix(&writes, out[s], lengths[s]);
        }
        writes.calls++;

        // The four streams read back, laid one after another with room after the last:
        // whole, then with the reach short of where they end and resumed from where the
        // loop stopped, then with a stretch of ones (no code starts there) in one.
        if (count == 4 && k >= 4) {
            // The copy as a load makes it: the streams, then the library's padding and not
            // a byte more (a read past it shows under the sanitizers), with its reach.
            size_t at = lengths[0] + lengths[1] + lengths[2] + lengths[3];
            copy = malloc(at + library_padding);
            at = 0;
            routelog_four_streams streams;
            memset(&streams, 0, sizeof streams);
            for (size_t s = 0; s < 4; s++) {
                memcpy(copy + at, out[s], lengths[s]);
                streams.positions[s] = (int64_t)at * 8;
                at += lengths[s];
            }
            memset(copy + at, 0, library_padding);
            int64_t reach = ((int64_t)at + library_padding - 8) * 8 - 72 * ROUTELOG_FOUR_STREAM_GROUPS_PER_CHECK;
            streams.bytes = copy, streams.reach = reach, streams.entries = entries;
            streams.mask = (1u << code_bits) - 1, streams.bias = bias, streams.divisor = divisor, streams.order = order;
            routelog_four_streams start = streams;
            size_t done = check_four_read(&four, &streams, decoded, twin_decoded, k);
            if (done != k - k % 32 || memcmp(decoded, expected, done * 8) != 0) {
                fail("four-stream decoder: not the values written", four.calls);
            }
            streams = start;
            streams.reach = (int64_t)below((uint64_t)at * 8);
            size_t first = check_four_read(&four, &streams, decoded, twin_decoded, k);
            streams.reach = reach;
            size_t rest = check_four_read(&four, &streams, decoded + first, twin_decoded, k - first);
            if (first + rest != done || memcmp(decoded, expected, done * 8) != 0) {
                fail("four-stream decoder: resumed, not the values written", four.calls);
            }
            // The reach exactly where the last stream starts: a position at the reach is
            // still read from, so one batch and no more.
            streams = start;
            streams.reach = start.positions[3];
            if (check_four_read(&four, &streams, decoded, twin_decoded, k) != (k >= 32 ? 32 : 0)) {
                fail("four-stream decoder: a position at the reach is not read from", four.calls);
            }
            streams = start;
            memset(copy + below(at > 16 ? at - 16 : 1), 0xFF, 16);
            check_four_read(&four, &streams, decoded, twin_decoded, k);
            free(copy);
        }

        // One stream with zero runs, written and read back: whole, with fewer values
        // asked than it holds, and damaged.
        memset(bytes, 0, region);
        memset(twin, 0, region);
        size_t length = routelog_write_run_stream(u, tokens, k, send, masks, bytes);
        size_t twin_length = routelog_write_run_stream_portable(u, tokens, k, send, masks, twin);
        if (length != twin_length || memcmp(bytes, twin, length) != 0) fail("run writer: the two paths differ", runs.calls);
        memset(run_counts, 0, sizeof run_counts);  // the count adds to what is there
        routelog_count_zero_runs(tokens, k, run_counts);
        mix_u64(&runs, length), mix(&runs, bytes, length), mix(&runs, run_counts, 20 * 4);
        runs.calls++;

        copy = malloc(length + library_padding);
        memcpy(copy, bytes, length);
        memset(copy + length, 0, library_padding);
        check_run_read(&one, copy, length, k, bias, divisor, residuals, decoded, twin_decoded, "whole");
        check_run_read(&one, copy, length, below(k + 1), bias, divisor, 0, decoded, twin_decoded, "fewer asked");
        // More asked than it holds: the readers stop at the stream's end, not in the padding.
        check_run_read(&one, copy, length, k + 1 + below(7), bias, divisor, 0, decoded, twin_decoded, "more asked");
        if (length > 0) memset(copy + below(length), 0xFF, 16);
        check_run_read(&one, copy, length, k, bias, divisor, 0, decoded, twin_decoded, "damaged");
        free(copy);
    }
    free(u), free(scratch), free(tokens), free(expected), free(residuals), free(decoded), free(twin_decoded);
    free(bytes), free(twin);
    report("write_residual_streams", &writes);
    report("write_run_stream, runs", &runs);
    report("decode_four_streams", &four);
    report("decode_run_stream", &one);
}

// Runs longer than the longest run token takes (2^20 - 1): written as several, counted
// as several, read back whole.
static void check_long_runs(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    const size_t lengths[] = {(1u << 21) + 5, (1u << 20) - 1, 1u << 20, 3};
    size_t k = 0;
    for (size_t r = 0; r < 4; r++) k += lengths[r] + 1;
    uint64_t *u = calloc(k, 8), *twin_u = calloc(k, 8);
    uint8_t *tokens = malloc(k), *bytes = calloc(k / 4 + 64, 1), *twin = calloc(k / 4 + 64, 1);
    int64_t *residuals = malloc(k * 8), *decoded = malloc(k * 8), *twin_decoded = malloc(k * 8);
    uint32_t counts[1024], run_counts[32];
    size_t at = 0;
    for (size_t r = 0; r < 4; r++) {
        u[at] = 2 * r + 7;  // a value, then the run
        at += lengths[r] + 1;
    }
    memcpy(twin_u, u, k * 8);
    routelog_tokenize_residuals(u, k, 0, tokens, counts);
    integrate(u, k, -3, 1, 0, residuals);
    size_t length = routelog_write_run_stream(u, tokens, k, send, masks, bytes);
    if (length != routelog_write_run_stream_portable(u, tokens, k, send, masks, twin) || memcmp(bytes, twin, length) != 0) {
        fail("long runs: the two writers differ", d.calls);
    }
    memset(run_counts, 0, sizeof run_counts);
    routelog_count_zero_runs(tokens, k, run_counts);
    // 2^21 + 5 is two runs of 2^20 - 1 and one of 7, 2^20 one of 2^20 - 1 and one of 1.
    if (run_counts[19] != 4 || run_counts[2] != 1 || run_counts[1] != 1 || run_counts[0] != 1) {
        fail("long runs: not counted as runs of at most 2^20 - 1", d.calls);
    }
    mix_u64(&d, length), mix(&d, bytes, length), mix(&d, run_counts, 20 * 4);
    check_run_read(&d, bytes, length, k, -3, 1, residuals, decoded, twin_decoded, "long runs");
    free(u), free(twin_u), free(tokens), free(bytes), free(twin), free(residuals), free(decoded), free(twin_decoded);
    report("long runs", &d);
}

static void check_bytes(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    uint8_t hay[600], needle[9];
    for (int round = 0; round < 500; round++) {
        size_t count = below(sizeof hay), needle_count = below(sizeof needle + 1);  // the empty needle too
        for (size_t i = 0; i < count; i++) hay[i] = (uint8_t)(below(4) == 0 ? 0xAB : next_random());
        for (size_t i = 0; i < needle_count; i++) needle[i] = (uint8_t)(below(2) == 0 ? 0xAB : next_random());
        if (count > needle_count && below(2) == 0) memcpy(hay + below(count - needle_count), needle, needle_count);
        // The sync marker's prefix in half the rounds, anywhere (its last byte may be cut).
        if (count > 0 && below(2) == 0) {
            static const uint8_t marker[3] = {0xAB, 0x52, 0x4C};
            size_t place = below(count), room = count - place;
            memcpy(hay + place, marker, room < 3 ? room : 3);
        }
        mix_u64(&d, (uint64_t)routelog_contains_bytes(hay, count, needle, needle_count));
        mix_u64(&d, routelog_find_sync_prefix(hay, count));
        d.calls++;
    }
    report("contains_bytes, sync_prefix", &d);
}

// The steps of segments of walks with hostile lengths and times: NaN, infinities, the
// absent pattern, signed zeros, the -1 of a step left to the caller (the sums stop at
// it; the caller's part is played by skipping it), times that stand still or go back.
static void check_step_sums(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 600 };
    double times[n], lengths[n], twin[n];
    static const double speeds[] = {0.3, 0, -1, 1e300};
    for (int round = 0; round < 400; round++) {
        double t = uniform(-1e9, 1e9);
        for (int i = 0; i < n; i++) {
            t += below(10) == 0 ? sometimes_hostile(uniform(-2, 2), 3) : uniform(0, 2);
            times[i] = below(50) == 0 ? sometimes_hostile(t, 2) : t;
            lengths[i] = below(30) == 0 ? -1 : sometimes_hostile(uniform(0, 3), 12);
        }
        memcpy(twin, lengths, sizeof lengths);
        size_t from = 1 + below(8), to = from + (round < 40 ? (size_t)(round % 20) : below(n - from));
        double minimum_speed = speeds[round % 4];
        double sums[2] = {0, 0}, twin_sums[2] = {0, 0};
        if (round % 5 == 0) sums[0] = twin_sums[0] = -0.0, sums[1] = twin_sums[1] = uniform(0, 10);
        for (size_t i = from; i < to;) {
            size_t stop = routelog_sum_steps(times, lengths, i, to, minimum_speed, &sums[0], &sums[1]);
            size_t twin_stop = routelog_sum_steps_portable(times, twin, i, to, minimum_speed, &twin_sums[0], &twin_sums[1]);
            if (stop != twin_stop || memcmp(sums, twin_sums, sizeof sums) != 0) fail("step sums: the two paths differ", d.calls);
            mix_u64(&d, stop);
            i = stop + 1;
        }
        if (memcmp(lengths, twin, sizeof lengths) != 0) fail("step sums: the two paths leave different lengths", d.calls);
        mix(&d, sums, sizeof sums);
        mix(&d, lengths, sizeof lengths);
        d.calls++;
    }
    report("step_sums", &d);
}

// Doubles with every NaN as one: the plane's NaNs (from NaN or infinite coordinates)
// take their payload from whichever operand a compiler put first, and never matter: a
// NaN key ranks last and a NaN distance counts as 0.
static void mix_doubles_nan_as_one(digest *d, const double *values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint64_t bits = 0x7FF8000000000000ull;
        if (values[i] == values[i]) memcpy(&bits, &values[i], 8);
        mix_u64(d, bits);
    }
}

static int same_doubles_nan_as_one(const double *a, const double *b, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (a[i] != a[i] && b[i] != b[i]) continue;
        if (memcmp(&a[i], &b[i], 8) != 0) return 0;
    }
    return 1;
}

// Walks in degrees that cross the antimeridian and the prime meridian (where a step is
// not always exact), stand still, take steps of exactly 180 and just past it, and now and
// then meet a hostile value; every count around the four-point loop and its tail.
static void check_plane(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 700 };
    double lat[n], lon[n], x[n], y[n], twin_x[n], twin_y[n];
    static const double steps[] = {180, -180, 180.00000000000003, -179.99999999999997, 360, 0, 1e-300, -0.0};
    for (int round = 0; round < 300; round++) {
        double a = uniform(-90, 90), o = round % 3 == 0 ? uniform(-1e-3, 1e-3) : uniform(-180, 180);
        double scale = round % 7 == 0 ? uniform(-1e9, 1e9) : uniform(0, 111194.9), metres = 111194.92664455873;
        // Two rounds in three walk as a track does, with a rare jump, so that the four-point
        // path is taken and left; the third jumps often.
        uint64_t jumps = round % 3 == 0 ? 6 : 400;
        for (int i = 0; i < n; i++) {
            if (below(jumps) == 0) {
                switch (below(3)) {
                case 0: o += steps[below(8)]; break;
                case 1: o = below(2) ? 179.9999999 : -179.9999999; break;
                default: o = uniform(-1e-4, 1e-4);  // across the prime meridian
                }
            } else if (below(8) != 0) {  // or standing still
                o += uniform(-2e-4, 2e-4), a += uniform(-1e-4, 1e-4);
            }
            if (o > 180) o -= 360;
            if (o < -180) o += 360;
            lat[i] = sometimes_hostile(a, 300);
            lon[i] = sometimes_hostile(o, round % 2 ? 300 : 100000);
        }
        size_t count = round < 40 ? (size_t)(round % 20) : n - below(9);
        routelog_project_on_plane(lat, lon, count, scale, metres, x, y);
        routelog_project_on_plane_portable(lat, lon, count, scale, metres, twin_x, twin_y);
        if (!same_doubles_nan_as_one(x, twin_x, count) || !same_doubles_nan_as_one(y, twin_y, count)) {
            fail("plane: the two paths differ", d.calls);
        }
        mix_doubles_nan_as_one(&d, x, count);
        mix_doubles_nan_as_one(&d, y, count);
        d.calls++;
    }
    report("project_on_plane", &d);
}

// Tracks of stored coordinates through cells of every level, with cell bounds at the
// ends of Int64 (the outer rows and columns), empty and inverted bounds, and points on
// and one past each bound, at every offset around the eight-point loop.
static void check_cell_scan(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 500 };
    int64_t lat[n], lon[n];
    for (int round = 0; round < 400; round++) {
        int64_t a = (int64_t)below(1800000001) - 900000000, o = (int64_t)below(3600000001) - 1800000000;
        int64_t size = (int64_t)1 << below(31);
        int64_t lat_low = a - (int64_t)below((uint64_t)size), lat_high = lat_low + size;
        int64_t lon_low = o - (int64_t)below((uint64_t)size), lon_high = lon_low + size;
        switch (round % 8) {
        case 0: lat_low = INT64_MIN; break;
        case 1: lat_high = INT64_MAX, lon_low = INT64_MIN; break;
        case 2: lon_high = lon_low; break;  // empty
        case 3: lat_high = lat_low - 1; break;  // inverted: nothing inside
        case 4: lat_low = INT64_MIN, lat_high = INT64_MAX, lon_low = INT64_MIN, lon_high = INT64_MAX; break;
        default: break;
        }
        static const int64_t edges[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
        for (int i = 0; i < n; i++) {
            if (below(8) != 0) a += (int64_t)below(2001) - 1000, o += (int64_t)below(2001) - 1000;
            lat[i] = a, lon[i] = o;
            switch (below(60)) {
            case 0: lat[i] = below(2) ? lat_low : lat_high; break;
            case 1: lon[i] = (int64_t)((uint64_t)(below(2) ? lon_low : lon_high) - 1); break;  // wrapping at the ends
            case 2: lat[i] = edges[below(5)]; break;
            case 3: lon[i] = edges[below(5)]; break;
            default: break;
            }
        }
        size_t count = round < 40 ? (size_t)(round % 20) : n - below(9);
        for (size_t from = 0; from <= count;) {
            size_t i = routelog_first_outside_cell(lat, lon, from, count, lat_low, lat_high, lon_low, lon_high);
            if (i != routelog_first_outside_cell_portable(lat, lon, from, count, lat_low, lat_high, lon_low, lon_high)) {
                fail("cell scan: the two paths differ", d.calls);
            }
            mix_u64(&d, i);
            from = i + 1 + below(3);
        }
        d.calls++;
    }
    report("first_outside_cell", &d);
}

// Altitudes that wander by a fraction of the threshold (most change nothing, as a walk's
// do) or jump, with hostile values, first values among them, thresholds of every kind,
// and the altitudes added in pieces, so that a climb goes on from where a call left it.
static void check_climb(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 600 };
    double altitudes[n];
    static const double thresholds[] = {3, 0, -1, 1e-300, __builtin_inf(), __builtin_nan("")};
    for (int round = 0; round < 400; round++) {
        double h = uniform(-500, 9000), stride = round % 5 == 0 ? 4 : 0.3;
        for (int i = 0; i < n; i++) {
            h += uniform(-stride, stride);
            altitudes[i] = sometimes_hostile(h, round % 3 == 0 ? 8 : 200);
        }
        if (round % 7 == 0) altitudes[0] = sometimes_hostile(h, 1);
        double threshold = round % 2 ? 3 : thresholds[below(6)];
        size_t count = round < 40 ? (size_t)(round % 20) : n - below(9);
        routelog_climb climb = {0, 0, 0, 0, 0}, twin = climb;
        size_t from = 0;
        do {
            size_t to = round % 4 == 0 ? count : from + below(count - from + 1);
            routelog_climb_add(&climb, altitudes, from, to, threshold, absent_bits);
            routelog_climb_add_portable(&twin, altitudes, from, to, threshold, absent_bits);
            if (memcmp(&climb, &twin, sizeof climb) != 0) fail("climb: the two paths differ", d.calls);
            from = to;
        } while (from < count);
        mix(&d, &climb, sizeof climb);
        d.calls++;
    }
    report("climb_add", &d);
}

// Speeds with zeros of both signs, equal values, hostile values and starts of -1 and of
// both zeros, every count around the four lanes.
static void check_largest(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 300 };
    double values[n];
    static const double starts[] = {-1, 0, -0.0};
    static const double zeros[] = {0, -0.0, -1, __builtin_inf(), -__builtin_inf()};
    for (int round = 0; round < 600; round++) {
        size_t count = round < 40 ? (size_t)(round % 20) : below(n);
        for (size_t i = 0; i < count; i++) {
            values[i] = round % 3 == 0 ? zeros[below(5)] : sometimes_hostile((double)below(40) / 4, 4);
        }
        double start = starts[round % 3];
        double largest = routelog_largest_finite(values, count, start);
        double twin = routelog_largest_finite_portable(values, count, start);
        if (memcmp(&largest, &twin, sizeof largest) != 0) fail("largest: the two paths differ", d.calls);
        mix(&d, &largest, sizeof largest);
        d.calls++;
    }
    report("largest_finite", &d);
}

// Spans whose points project exactly onto the chord's ends (dot 0, -0 or exactly
// length2), just inside and outside them, and chords of every size: squared lengths
// that are subnormal, the smallest normal, huge, infinite or NaN.
static void check_farthest_ends(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 200 };
    double x[n], y[n];
    static const double scales[] = {1, 1e-160, 0x1p-511, 0x1p-512, 1e-300, 1e150, 1e200, 3};
    for (int round = 0; round < 400; round++) {
        double s = scales[round % 8], ax = uniform(-5, 5) * s, ay = uniform(-5, 5) * s;
        double dx = round % 3 == 0 ? 0 : uniform(-5, 5) * s, dy = round % 5 == 0 ? 0 : uniform(-5, 5) * s;
        if (round % 8 == 7) dx = (double)below(5) - 2, dy = (double)below(5) - 2;  // small integers: exact products
        size_t count = 9 + below(n - 9);
        x[0] = ax, y[0] = ay, x[count - 1] = ax + dx, y[count - 1] = ay + dy;
        for (size_t i = 1; i + 1 < count; i++) {
            // Perpendicular to the chord from an end (dot 0 or length2), along it, or past it.
            double t = (double)below(7) - 3, u = uniform(-3, 3);
            // Every third round only points perpendicular at the ends, which then win.
            switch (round % 3 == 1 ? below(2) : below(6)) {
            case 0: x[i] = ax - dy * u, y[i] = ay + dx * u; break;
            case 1: x[i] = ax + dx - dy * u, y[i] = ay + dy + dx * u; break;
            case 2: x[i] = ax + dx * t, y[i] = ay + dy * t; break;
            case 3: x[i] = sometimes_hostile(ax + dx * u, 20), y[i] = ay + dy * u; break;
            default: x[i] = ax + dx * uniform(-0.1, 1.1) - dy * u, y[i] = ay + dy * uniform(-0.1, 1.1) + dx * u;
            }
        }
        if (round % 4 == 3) {
            // A chord along x of 3, 5 or 7 times a power of 2 and points straight above or
            // below its ends: dot is exactly 0 or length2, and the keys for the ends and
            // the squared cross products round differently. A few heights, so that
            // points at both ends tie and the first must win.
            static const double heights[] = {0.1, -0.1, 0.7, -0.7, 1.3, 0.30000000000000004};
            double unit = round % 8 == 3 ? 1 : 0x1p-20, length = (double)(3 + 2 * below(3)) * unit;
            x[0] = 0, y[0] = 0, x[count - 1] = length, y[count - 1] = 0;
            for (size_t i = 1; i + 1 < count; i++) x[i] = below(2) ? length : 0, y[i] = heights[below(6)] * unit;
        }
        size_t best = routelog_farthest_point(x, y, 0, count - 1);
        if (best != routelog_farthest_point_portable(x, y, 0, count - 1)) fail("farthest at the ends: the two paths differ", d.calls);
        mix_u64(&d, best);
        d.calls++;
    }
    report("farthest_point_ends", &d);
}

// routelog_tokenize_differences: the residuals of a column's values of each order, and
// their tokens, in one pass; the same u, tokens, counts and exactness as the residuals
// worked out here and tokenized by routelog_tokenize_residuals (both paths of each).
static void check_token_differences(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { most = 700 };
    int64_t *values = malloc((most + 2) * 8);
    uint64_t *u = malloc(most * 8), *mine = malloc(most * 8), *twin = malloc(most * 8);
    uint8_t *tokens = malloc(most), *mine_tokens = malloc(most), *twin_tokens = malloc(most);
    uint32_t counts[1024], mine_counts[1024], twin_counts[1024];
    for (int round = 0; round < 600; round++) {
        int order = (int)below(3);
        size_t k = round % 4 == 0 ? below(40) : below(most);
        size_t m = k + (size_t)order;
        for (size_t i = 0; i < m; i++) {
            switch (round % 4) {
            case 0: values[i] = geometric(62); break;
            case 1: values[i] = (i ? values[i - 1] : geometric(40)) + geometric(10); break;
            case 2: values[i] = (int64_t)next_random(); break;  // differences that wrap
            default: values[i] = (int64_t)below(7) * 1000003;
            }
        }
        int64_t bias = round % 5 == 0 ? (int64_t)next_random() : geometric(6);
        routelog_exact_division division, *by = 0;
        if (round % 2) {
            uint64_t odd = 2 * below(60) + 1;
            division = exact_division(odd, (int64_t)below(12));
            int64_t divisor = (int64_t)(odd << division.shift);
            by = &division;
            // Multiples of the divisor but now and then (the bias then keeps them so).
            for (size_t i = 0; i < m; i++) {
                if (below(40) != 0) values[i] = (values[i] >> 20) * divisor;
            }
            bias = below(3) == 0 ? bias : 0;
        }
        for (size_t j = 0; j < k; j++) {
            const uint64_t *w = (const uint64_t *)values;
            uint64_t r = order == 0 ? w[j] : order == 1 ? w[j + 1] - w[j] : (w[j + 2] - w[j + 1]) - (w[j + 1] - w[j]);
            u[j] = r - (uint64_t)bias;
        }
        int exact = routelog_tokenize_residuals(u, k, by, tokens, counts);
        int mine_exact = routelog_tokenize_differences(values, order, bias, k, by, mine, mine_tokens, mine_counts);
        int twin_exact = routelog_tokenize_differences_portable(values, order, bias, k, by, twin, twin_tokens, twin_counts);
        if (exact != mine_exact || exact != twin_exact) fail("token differences: exactness differs", d.calls);
        if (exact && (memcmp(u, mine, k * 8) || memcmp(tokens, mine_tokens, k) || memcmp(counts, mine_counts, 256 * 4) ||
                      memcmp(u, twin, k * 8) || memcmp(tokens, twin_tokens, k) || memcmp(counts, twin_counts, 256 * 4))) {
            fail("token differences: not the tokens of the residuals", d.calls);
        }
        mix_u64(&d, (uint64_t)exact);
        if (exact) mix(&d, mine, k * 8), mix(&d, mine_tokens, k), mix(&d, mine_counts, 256 * 4);
        d.calls++;
    }
    free(values), free(u), free(mine), free(twin), free(tokens), free(mine_tokens), free(twin_tokens);
    report("tokenize_differences", &d);
}

// Run columns of order 1 and 2, whose running sums the run decoders make beside the
// tokens: from start values anywhere, the values integrate() gives (shifted by the start
// values), on both paths, with the sums after them; runs of every short length at the
// column's end (the four stores of a short run against k), long runs, slow tokens, fewer
// values asked than the stream holds, and damage.
static void check_run_sums(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    enum { n = 3000 };
    uint64_t *u = malloc(n * 8);
    uint8_t *tokens = malloc(n), *bytes = malloc(n * 10 + 64);
    uint32_t counts[1024];
    int64_t *expected = malloc(n * 8), *decoded = malloc((n + 8) * 8), *twin_decoded = malloc((n + 8) * 8);
    make_code();
    for (int round = 0; round < 400; round++) {
        unsigned bits = round % 10 == 9 ? 63 : 2 + (unsigned)below(40);
        size_t k = make_residuals(u, n, bits);
        if (round % 2 == 0 && k > 8) {  // a run of 1 to 8 zeros last
            size_t tail = 1 + below(8);
            for (size_t j = k - tail; j < k; j++) u[j] = 0;
            u[k - tail - 1] = 1 + below(5);
        }
        routelog_tokenize_residuals(u, k, 0, tokens, counts);
        int64_t bias = round % 5 == 0 ? (int64_t)(next_random() | 1ull << 63) : geometric(30), divisor = 1;
        if (below(3) == 0) divisor = (int64_t)(1 + below(1000)) * (below(2) ? -1 : 1);
        int order = 1 + (int)below(2);
        int64_t value = round % 7 == 0 ? INT64_MAX - (int64_t)below(8) : geometric(40);
        int64_t delta = round % 11 == 0 ? INT64_MIN + (int64_t)below(8) : geometric(20);
        // integrate() sums from 0 and 0: a start value v and difference e add v + (i + 1) e.
        integrate(u, k, bias, divisor, order, expected);
        for (size_t i = 0; i < k; i++) {
            expected[i] = (int64_t)((uint64_t)expected[i] + (uint64_t)value + (order == 2 ? (uint64_t)(i + 1) * (uint64_t)delta : 0));
        }
        size_t length = routelog_write_run_stream(u, tokens, k, send, masks, bytes);
        uint8_t *copy = malloc(length + library_padding);
        memcpy(copy, bytes, length);
        memset(copy + length, 0, library_padding);
        for (int pass = 0; pass < 3; pass++) {
            // Whole, fewer asked, damaged.
            size_t asked = pass == 1 ? below(k + 1) : k;
            if (pass == 2 && length > 0) memset(copy + below(length), 0xFF, 1 + below(16));
            routelog_run_stream stream = {copy, 0, (int64_t)length * 8, entries, (1u << code_bits) - 1, bias, divisor,
                                          order, value, delta};
            routelog_run_stream after, twin_after;
            int64_t end = 0, twin_end = 0;
            size_t done = read_run_stream(routelog_decode_run_stream, stream, decoded, asked, &end, &after);
            size_t twin_done = read_run_stream(routelog_decode_run_stream_portable, stream, twin_decoded, asked, &twin_end,
                                               &twin_after);
            if (done != twin_done || end != twin_end || memcmp(decoded, twin_decoded, done * 8) != 0 ||
                after.value != twin_after.value || after.delta != twin_after.delta) {
                fail("run decoder with sums: the two paths differ", d.calls);
            }
            // Fewer asked stops before a run that passes the last value asked for.
            if (pass < 2 && ((pass == 0 && done != asked) || done > asked || memcmp(decoded, expected, done * 8) != 0)) {
                fail("run decoder with sums: not the values written", d.calls);
            }
            if (pass < 2 && done > 0 && after.value != expected[done - 1]) {
                fail("run decoder with sums: not the last value after", d.calls);
            }
            mix_u64(&d, done), mix(&d, decoded, done * 8), mix_u64(&d, (uint64_t)end);
            mix_u64(&d, (uint64_t)after.value), mix_u64(&d, (uint64_t)after.delta);
            d.calls++;
        }
        free(copy);
    }
    free(u), free(tokens), free(bytes), free(expected), free(decoded), free(twin_decoded);
    report("decode_run_stream, sums", &d);
}

// Decode tables of complete codes made by splitting leaves (a code of one symbol at
// length 1, or more: a random leaf of length l becomes two of length l + 1, up to 11),
// given to random distinct symbols among those listed, runs or none: every entry and
// the width, for each.
static void check_decode_table(void) {
    digest d = {0xCBF29CE484222325ull, 0};
    static uint64_t table[1 << 11];
    for (int round = 0; round < 600; round++) {
        uint8_t lengths[276] = {0}, leaves[276];
        unsigned used = 1 + (unsigned)below(round % 3 == 0 ? 6 : 120);
        size_t value_listed = 16 + below(241), run_listed = round % 2 ? below(21) : 0;
        if (used > value_listed + run_listed) used = (unsigned)(value_listed + run_listed);
        unsigned count = 1;
        leaves[0] = 1;  // one code of one bit (a single used symbol), or split below
        if (used > 1) leaves[0] = 0;
        while (count < used) {
            unsigned at = (unsigned)below(count);
            if (leaves[at] >= 11) {
                unsigned j = 0;
                while (j < count && leaves[j] >= 11) j++;
                if (j == count) break;
                at = j;
            }
            leaves[at]++;
            leaves[count++] = leaves[at];
        }
        for (unsigned j = 0; j < count; j++) {
            size_t slot;
            unsigned symbol;
            do {
                slot = below(value_listed + run_listed);
                symbol = slot < value_listed ? (unsigned)slot : 256 + (unsigned)(slot - value_listed);
            } while (lengths[symbol] != 0);
            lengths[symbol] = leaves[j];
        }
        int bits = routelog_fill_decode_table(lengths, value_listed, run_listed, table);
        mix_u64(&d, (uint64_t)bits), mix(&d, table, ((size_t)1 << bits) * 8);
        d.calls++;
    }
    report("fill_decode_table", &d);
}

int main(void) {
    fprintf(stderr, "paths: crc32c=%d divide=%d multiplies=%d build_points=%d farthest=%d quantize=%d short_steps=%d\n",
            routelog_crc32c_is_accelerated(), routelog_divide_is_wide(), routelog_divide_multiplies(),
            routelog_build_points_is_wide(), routelog_farthest_point_is_wide(), routelog_quantize_fields_is_wide(), routelog_short_step_lengths_is_wide());
    check_crc32c();
    check_divide();
    check_farthest();
    check_short_steps();
    check_quantize();
    check_range();
    check_tokens();
    check_streams();
    check_long_runs();
    check_bytes();
    check_build_points();  // after the others, so that its draws leave their inputs as they were
    check_value_outside();  // added later: after every earlier kernel, for the same reason
    check_running_sums();  // the same
    check_step_sums();  // the same
    check_plane();  // the same
    check_cell_scan();  // the same
    check_climb();  // the same
    check_largest();  // the same
    check_farthest_ends();  // the same
    check_token_differences();  // the same
    check_run_sums();  // the same
    check_decode_table();  // the same
    return 0;
}
