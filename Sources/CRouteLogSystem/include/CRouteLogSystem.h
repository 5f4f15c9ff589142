#ifndef ROUTELOG_SYSTEM_H
#define ROUTELOG_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// CRC32C (Castagnoli), as used by RouteLog's record frames. `crc` is the running
/// value (0 to start); returns the updated value. Uses the SSE4.2 or ARMv8 CRC
/// instructions when the processor has them, a slice-by-8 table otherwise.
uint32_t routelog_crc32c_extend(uint32_t crc, const void *data, size_t length);

/// 1 when routelog_crc32c_extend uses processor instructions, 0 for the table.
int routelog_crc32c_is_accelerated(void);

/// The same CRC32C computed with the portable table only (for tests).
uint32_t routelog_crc32c_extend_portable(uint32_t crc, const void *data, size_t length);

/// out[i] = (double)values[i] / divisor for i < count: each the IEEE quotient a scalar
/// division gives (in the rounding mode in force), computed four at a time with AVX2
/// when the processor has it (with fused multiply-adds and no division where it also
/// has FMA3). values and out may be the same memory.
void routelog_divide_integers(const int64_t *values, size_t count, double divisor, double *out);

/// 1 when routelog_divide_integers uses AVX2, 0 otherwise.
int routelog_divide_is_wide(void);

/// 1 when routelog_divide_integers uses fused multiply-adds, not the divider, for the
/// format's scales (AVX2 and FMA3), 0 otherwise.
int routelog_divide_multiplies(void);

/// The same quotients without AVX2 (for tests).
void routelog_divide_integers_portable(const int64_t *values, size_t count, double divisor, double *out);

/// The fields of a point (latitude, longitude, time, then the seven optional ones).
#define ROUTELOG_POINT_FIELDS 10

/// Where routelog_build_points takes one field of each point from: `integers[i]`
/// divided by `divisor`, less `offset` when that is not 0 (each step the IEEE operation
/// scalar code performs, in the rounding mode in force), when `integers` is not NULL;
/// else `doubles[i]`, copied bit for bit.
typedef struct {
    const int64_t *integers;
    const double *doubles;
    double divisor, offset;
} routelog_point_source;

/// Writes `count` points of ROUTELOG_POINT_FIELDS doubles each at `points`, field f of
/// point i at double 10 × i + f, from sources[0..<10]. With AVX2 and FMA3 the quotients
/// come from multiply-adds, as routelog_divide_integers computes them, and four points
/// are written at a time; the same doubles either way. No source may overlap the points
/// (unlike routelog_divide_integers, which may write over its integers).
void routelog_build_points(const routelog_point_source *sources, size_t count, void *points);

/// 1 when routelog_build_points uses AVX2 and FMA3, 0 otherwise.
int routelog_build_points_is_wide(void);

/// The same points without AVX2 (for tests).
void routelog_build_points_portable(const routelog_point_source *sources, size_t count, void *points);

/// The index strictly between a and b (b > a + 1) of the point farthest from the
/// segment from point a to point b, x and y on a plane: the first of the largest when
/// several are as far, never one whose distance is NaN (a + 1 when every one is).
/// Points are compared by squared distance times the segment's squared length; four at
/// a time with AVX2 when the processor has it, the same index either way.
size_t routelog_farthest_point(const double *x, const double *y, size_t a, size_t b);

/// 1 when routelog_farthest_point uses AVX2, 0 otherwise.
int routelog_farthest_point_is_wide(void);

/// The same index without AVX2 (for tests).
size_t routelog_farthest_point_portable(const double *x, const double *y, size_t a, size_t b);

/// The preview's plane (format-spec.md, "Derived fields"), for i < count: y[i] is
/// lat[i] * metres_per_degree; x[i] is a running longitude times lon_scale, the running
/// longitude starting at lon[0] and adding each step lon[i] - lon[i - 1], less 360 when
/// it is more than 180 and plus 360 when it is less than -180 (the longitudes unwrapped
/// across the antimeridian). Four points at a time with AVX2 when the processor has it,
/// where the running longitude is provably each point's own; the same bits either way.
void routelog_project_on_plane(const double *lat, const double *lon, size_t count, double lon_scale,
                               double metres_per_degree, double *x, double *y);

/// The same without AVX2 (for tests).
void routelog_project_on_plane_portable(const double *lat, const double *lon, size_t count, double lon_scale,
                                        double metres_per_degree, double *x, double *y);

/// The first i in from..<count whose lat[i] is outside lat_low..<lat_high or lon[i]
/// outside lon_low..<lon_high (a grid cell's bounds; with low > high no point is
/// inside), or count when every one is inside. Eight points at a time with AVX2 when
/// the processor has it, the same index either way.
size_t routelog_first_outside_cell(const int64_t *lat, const int64_t *lon, size_t from, size_t count, int64_t lat_low,
                                   int64_t lat_high, int64_t lon_low, int64_t lon_high);

/// The same without AVX2 (for tests).
size_t routelog_first_outside_cell_portable(const int64_t *lat, const int64_t *lon, size_t from, size_t count,
                                            int64_t lat_low, int64_t lat_high, int64_t lon_low, int64_t lon_high);

/// A climb and descent measured with a hysteresis (RouteStats' elevation gain and loss),
/// as far as the altitudes added so far: the first altitude starts it (started, the
/// reference); each later finite one that is `threshold` past the reference, or past it
/// at all in the direction followed (1 climbing, -1 descending, 0 not yet known), adds
/// its change to climbed (or subtracts it from descended) and becomes the reference.
typedef struct {
    double reference, climbed, descended;
    int started, direction;
} routelog_climb;

/// Adds altitudes[from..<to] to `climb` in order, leaving out those whose bits are
/// absent_bits. Skips four altitudes at a time that change nothing with AVX2 when the
/// processor has it; the same climb either way.
void routelog_climb_add(routelog_climb *climb, const double *altitudes, size_t from, size_t to, double threshold,
                        uint64_t absent_bits);

/// The same without AVX2 (for tests).
void routelog_climb_add_portable(routelog_climb *climb, const double *altitudes, size_t from, size_t to,
                                 double threshold, uint64_t absent_bits);

/// The largest of start and the finite values[0..<count], as a loop of
/// `largest = value >= largest ? value : largest` over them in order gives it (the later
/// of equal values, which tells only 0 from -0). Four values at a time with AVX2 when the
/// processor has it, the same bits either way.
double routelog_largest_finite(const double *values, size_t count, double start);

/// The same without AVX2 (for tests).
double routelog_largest_finite_portable(const double *values, size_t count, double start);

/// 1 when the `needle_count` bytes at `needle` occur in the `haystack_count` bytes at
/// `haystack` (always for an empty needle), else 0.
int routelog_contains_bytes(const void *haystack, size_t haystack_count, const void *needle, size_t needle_count);

// 1 when this build runs under AddressSanitizer (sanitizers.c).
int routelog_built_with_address_sanitizer(void);

/// The offset of the first `AB 52 4C` (the sync marker's first three bytes) wholly
/// inside the `count` bytes at `data`, or `count` when there is none.
size_t routelog_find_sync_prefix(const void *data, size_t count);
/// The same search with 16-byte vectors only (the processor's wider path is tested against it).
size_t routelog_find_sync_prefix_portable(const void *data, size_t count);

/// Asks the processor to bring the cache line at `address` in for reading: a hint, no
/// fault on any address. For loops that know the next slot they will touch.
static inline void routelog_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// value × scale rounded to the nearest integer, ties away from zero; beyond ±4.6e18
/// clamped to ±2^62, NaN to 0 (format-spec.md, "Quantization"). Inline, so that a Swift
/// loop gets one plain conversion where `Int64(Double)` checks again for a range this
/// has already checked.
static inline int64_t routelog_scaled(double value, double scale) {
    double v = value * scale;
    if (!(v > -4.6e18 && v < 4.6e18)) return v != v ? 0 : (v < 0 ? -((int64_t)1 << 62) : (int64_t)1 << 62);
    // Adding the largest double below 0.5, with v's sign, then truncating rounds ties
    // away from zero: one add and one conversion, where round() is a call.
    return (int64_t)(v + __builtin_copysign(0.49999999999999994, v));
}

/// What routelog_quantize_field found in one field of a run of points.
typedef struct {
    /// Smallest and largest stored integer of a required field (INT64_MAX and
    /// INT64_MIN for an optional field, and for no points).
    int64_t min, max;
    /// Points whose value has the absent bit pattern.
    size_t absent;
    /// 1 when every present value x has low <= x <= high (a NaN never does).
    int in_range;
} routelog_field_summary;

/// One field for routelog_quantize_fields: the `field`-th double of each point; each
/// value x becomes values[i] = routelog_scaled(x + offset, scale), and raw[i] = x when
/// raw is not NULL. Values are checked against low...high. In an optional field, a
/// value whose bits are `absent_bits` is absent (0, counted, not checked); in a required
/// one it is a NaN like any other.
typedef struct {
    size_t field;
    int optional;
    double offset, scale, low, high;
    int64_t *values;
    double *raw;
} routelog_field_spec;

/// The fields of `count` points laid out as `stride` doubles each, each field as its
/// spec says, with what was found in each into summaries[k]. A few hundred points at a
/// time, every field of them while they are in the cache; four points at a time with
/// AVX2 when the processor has it, the same integers either way.
void routelog_quantize_fields(const double *points, size_t count, size_t stride, const routelog_field_spec *specs,
                              size_t field_count, uint64_t absent_bits, routelog_field_summary *summaries);

/// 1 when routelog_quantize_fields uses AVX2, 0 otherwise.
int routelog_quantize_fields_is_wide(void);

/// The same without AVX2 (for tests).
void routelog_quantize_fields_portable(const double *points, size_t count, size_t stride,
                                       const routelog_field_spec *specs, size_t field_count, uint64_t absent_bits,
                                       routelog_field_summary *summaries);

/// Metres per degree of latitude and of longitude on the WGS84 ellipsoid at latitude φ,
/// M(φ)·π/180 and N(φ)·cos φ·π/180, as polynomials in φ² (φ in radians, |φ| ≤ π/2),
/// highest power first. The coefficients are a least-squares fit at 3,000 Chebyshev
/// nodes to the exact expressions, M = a(1 - e²)/(1 - e² sin²φ)^(3/2) and
/// N = a/(1 - e² sin²φ)^(1/2), computed with 40-digit arithmetic. Evaluated in doubles
/// by Horner's rule, both stay within 5e-15 of the exact value (relative to its largest
/// value) on every latitude; Geodesic.exactShortDistance and the accuracy tests check it.
#define ROUTELOG_SHORT_STEP_LATITUDE_TERMS -5.658196768749568e-07, 9.169268464512905e-06, \
    -3.7989299625016445e-06, -0.0016794612376222168, 0.026550816991306073, -0.14451676820205006, \
    -1.7386331620677937, 43.2267816196751, -360.82181729270957, 1110.3393291827026, 110574.2758215948
#define ROUTELOG_SHORT_STEP_LONGITUDE_TERMS 9.61396098135164e-07, -3.063842378008177e-05, \
    0.0004314527319338828, -0.00190454382943943, -0.048105726246324636, 1.186548170359169, \
    -11.334652171588964, -62.59565513570375, 4329.676660380222, -55287.13791080382, 111319.49079327367
#define ROUTELOG_SHORT_STEP_TERM_COUNT 11

/// Metres of a short step (format-spec.md has none: this is how a save measures): the
/// plane tangent at the mid-latitude, scaled by the meridional and prime-vertical radii
/// there. For |midLatitude| ≤ 90; the same roundings on every processor (no fused
/// multiply-add), so a distance is the same to the bit wherever it is measured.
static inline double routelog_short_step_length(double lat_delta, double lon_delta, double mid_latitude) {
#pragma clang fp contract(off)
    static const double lat_terms[ROUTELOG_SHORT_STEP_TERM_COUNT] = {ROUTELOG_SHORT_STEP_LATITUDE_TERMS};
    static const double lon_terms[ROUTELOG_SHORT_STEP_TERM_COUNT] = {ROUTELOG_SHORT_STEP_LONGITUDE_TERMS};
    double phi = mid_latitude * (3.14159265358979323846 / 180.0);
    double t = phi * phi, a = lat_terms[0], b = lon_terms[0];
    for (int k = 1; k < ROUTELOG_SHORT_STEP_TERM_COUNT; k++) {
        a = a * t + lat_terms[k];
        b = b * t + lon_terms[k];
    }
    double north = a * lat_delta, east = b * lon_delta;
    return __builtin_sqrt(north * north + east * east);
}

/// lengths[i] for i in 1..<count: metres of the step from point i - 1 to point i
/// (degrees in lat and lon) when it is short (both differences at most 0.02 degree, the
/// mid-latitude within ±90), as routelog_short_step_length gives it; -1 for any other
/// step, which the caller measures another way. lengths[0] is not written. Four steps
/// at a time with AVX2 when the processor has it, the same bits either way.
void routelog_short_step_lengths(const double *lat, const double *lon, size_t count, double *lengths);

/// 1 when routelog_short_step_lengths uses AVX2, 0 otherwise.
int routelog_short_step_lengths_is_wide(void);

/// The same lengths without AVX2 (for tests).
void routelog_short_step_lengths_portable(const double *lat, const double *lon, size_t count, double *lengths);

/// Adds the steps from..<to of a segment (step i from point i - 1 to point i, from >= 1)
/// to a route's sums, as a save measures them, in order: lengths[i] (from
/// routelog_short_step_lengths, or measured by the caller) to *distance when it is
/// finite, and the seconds times[i] - times[i - 1] to *moving when the step is finite,
/// the seconds positive and lengths[i] >= minimum_speed * seconds; +0 otherwise. Leaves
/// NaN in lengths[i] for a length that is not finite. Stops at the first negative length
/// (a step routelog_short_step_lengths left to the caller), unread, and returns its
/// index; returns `to` when there is none. Four steps at a time with AVX2 when the
/// processor has it, the same sums and lengths either way.
size_t routelog_sum_steps(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                          double *distance, double *moving);

/// The same without AVX2 (for tests).
size_t routelog_sum_steps_portable(const double *times, double *lengths, size_t from, size_t to, double minimum_speed,
                                   double *distance, double *moving);

/// Exact division by a column's divisor (Codec/V2/ResidualModel.swift, ExactDivision):
/// shift is its trailing zero bits, odd_inverse the inverse of its odd part modulo 2^64,
/// smallest and largest the quotients that fit.
typedef struct {
    int64_t shift, odd_inverse, smallest, largest;
} routelog_exact_division;

/// A save's tokens of a version 2 column (format-spec.md, "PointBlock", "Tokens"): u[j]
/// holds residual j minus the bias (two's complement bits) and becomes u = zigzag of it
/// divided by the divisor (division NULL: by 1); tokens[j] is u's token, and counts[t]
/// how many values have token t. counts has room for 4 × 256 (four histograms, summed
/// into the first 256). Returns 1, or 0 when some residual is not a multiple of the
/// divisor (then u, tokens and counts are of no use). With AVX2 and LZCNT
/// when the processor has them, the same either way.
int routelog_tokenize_residuals(uint64_t *u, size_t k, const routelog_exact_division *division, uint8_t *tokens,
                                uint32_t *counts);

/// The same without AVX2 or LZCNT (for tests).
int routelog_tokenize_residuals_portable(uint64_t *u, size_t k, const routelog_exact_division *division,
                                         uint8_t *tokens, uint32_t *counts);

/// The same for the residuals of `values` of `order` 0, 1 or 2 (the values, their first
/// or their second differences, wrapping), each minus `bias`: residual j is worked out
/// from values[j...j + order] and its u written to u[j], for j < k (values holds k +
/// order values). What a save's column encoder does, in one pass where writing the
/// residuals to u and tokenizing them there took two; u, tokens and counts are what
/// routelog_tokenize_residuals gives for those residuals.
int routelog_tokenize_differences(const int64_t *values, int order, int64_t bias, size_t k,
                                  const routelog_exact_division *division, uint64_t *u, uint8_t *tokens,
                                  uint32_t *counts);

/// The same without AVX2 or LZCNT (for tests).
int routelog_tokenize_differences_portable(const int64_t *values, int order, int64_t bias, size_t k,
                                           const routelog_exact_division *division, uint64_t *u, uint8_t *tokens,
                                           uint32_t *counts);

/// Adds to costs[order] the bits of zigzag(r - biases[order]) for the residuals r of
/// orders 0, 1 and 2 at values[from..<to] (from >= 2: the two values before it start
/// the differences), wrapping: how a save compares a column's orders.
void routelog_order_costs(const int64_t *values, size_t from, size_t to, const int64_t *biases, int64_t *costs);

/// The same without LZCNT (for tests).
void routelog_order_costs_portable(const int64_t *values, size_t from, size_t to, const int64_t *biases,
                                   int64_t *costs);

/// The stored coordinates and times a writer can have written: latitudes within
/// ±latitude, longitudes within ±longitude (both below 2^62), times 0...latest_time.
typedef struct {
    uint64_t latitude, longitude;
    int64_t latest_time;
} routelog_point_ranges;

/// The first i < count whose lat[i], lon[i] or time[i] (time NULL: every time 0) is
/// outside ranges, or count when none is. With AVX2 when the processor has it, the same
/// answer either way.
size_t routelog_first_point_out_of_range(const int64_t *lat, const int64_t *lon, const int64_t *time, size_t count,
                                         const routelog_point_ranges *ranges);

/// The same without AVX2 (for tests).
size_t routelog_first_point_out_of_range_portable(const int64_t *lat, const int64_t *lon, const int64_t *time,
                                                  size_t count, const routelog_point_ranges *ranges);

/// The first i < count whose values[i] is outside low...high (low <= high), or count
/// when none is. With AVX2 when the processor has it, the same answer either way.
size_t routelog_first_value_outside(const int64_t *values, size_t count, int64_t low, int64_t high);

/// The same without AVX2 (for tests).
size_t routelog_first_value_outside_portable(const int64_t *values, size_t count, int64_t low, int64_t high);

/// What a version 2 column's code sends for its token counts: code and extra bits of
/// every token, and one past the last used value token (0...255) and run token (256 +
/// 0...19), as the lengths table lists them.
typedef struct {
    uint64_t bits;
    size_t value_tokens_listed;
    size_t run_tokens_listed;
} routelog_code_size;

/// Writes into lengths[t] (t < count, at most 276) the code length of token t in a
/// minimum-redundancy code of `weights`, no longer than `limit` (9 or more): 0 for a
/// token of weight 0, 1 for a single used token. Past the limit the weights are halved,
/// rounding up, and the code built again (Codec/V2/HuffmanLengths.swift). Returns what
/// the code sends for `weights` (tokens 256 and up taken as run tokens).
routelog_code_size routelog_huffman_lengths(const uint32_t *weights, size_t count, int limit, uint8_t *lengths);

/// Adds to run_counts[j] (20 entries) the runs of zero tokens in tokens[0..<k] whose run
/// token is j (a run of L zeros: the top bit's place of L), as a save with zero runs
/// would send them (format-spec.md, "PointBlock", "Version 2").
void routelog_count_zero_runs(const uint8_t *tokens, size_t k, uint32_t *run_counts);

/// Fills `entries` (room for 2^11) with the decode table of a version 2 column's code,
/// as Codec/V2/HuffmanCode.swift's HuffmanDecodeTable lays its entries out, and returns
/// its width in bits (the longest code). `lengths` holds a length (0...11) for each of
/// the 276 symbols (value tokens 0...255, then run tokens), nonzero only for value
/// tokens below `value_tokens_listed` (at most 256) and run tokens below
/// `run_tokens_listed` (at most 20); the lengths must have passed the code's checks
/// (complete, or a single code of length 1).
int routelog_fill_decode_table(const uint8_t *lengths, size_t value_tokens_listed, size_t run_tokens_listed,
                               uint64_t *entries);

/// Writes the one stream of a version 2 column with zero runs into out (room for its
/// worst case and 8 bytes more) and returns its bytes: each run of u = 0 (tokens[j] = 0)
/// as its run token, symbol 256 + j of send, and every other residual as
/// routelog_write_residual_streams writes it (send and masks as there). With BMI2 when
/// the processor has it, the same bytes either way.
size_t routelog_write_run_stream(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                 const uint64_t *masks, uint8_t *out);

/// The same without BMI2 (for tests).
size_t routelog_write_run_stream_portable(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                          const uint64_t *masks, uint8_t *out);

/// Writes a version 2 column's residuals (format-spec.md, "PointBlock", "Streams") into
/// count streams (1, 2 or 4; residual j into stream j mod count), stream s from out[s],
/// each with room for its worst case and 8 bytes more; lengths[s] is stream s's bytes.
/// u[j] is residual j's u and tokens[j] its token; send[t] is token t's reversed code in
/// bits 0-31, code length in bits 32-39, extra bits in 40-47 and both together in
/// 48-55, masks[t] the mask of its extra bits, and longest the most bits any used token
/// takes (a count too short is not trusted: the writer also reads it off send and takes
/// the larger). With AVX2 (four streams) and BMI2 when the processor has them, the same bytes either way.
void routelog_write_residual_streams(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                     const uint64_t *send, const uint64_t *masks, unsigned longest,
                                     uint8_t *const *out, size_t *lengths);

/// The same without AVX2 (for tests): with BMI2 when the processor has it, one stream
/// after another.
void routelog_write_residual_streams_scalar(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                            const uint64_t *send, const uint64_t *masks, unsigned longest,
                                            uint8_t *const *out, size_t *lengths);

/// The same without BMI2 (for tests).
void routelog_write_residual_streams_portable(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                              const uint64_t *send, const uint64_t *masks, unsigned longest,
                                              uint8_t *const *out, size_t *lengths);

/// A version 2 column being read from four streams (format-spec.md, "PointBlock",
/// "Version 2"; residual i in stream i mod 4), for routelog_decode_four_streams.
typedef struct {
    /// The block's copy, which every position counts from (in bits).
    const uint8_t *bytes;
    /// The four streams' bit positions; updated.
    int64_t positions[4];
    /// The last position from which ROUTELOG_FOUR_STREAM_GROUPS_PER_CHECK values of at
    /// most 72 bits each keep every 8-byte window inside the copy.
    int64_t reach;
    /// The column's decode table (Codec/V2/HuffmanCode.swift, HuffmanDecodeTable) and
    /// the mask of its width.
    const uint64_t *entries;
    uint64_t mask;
    /// Residual r = bias + divisor × unzigzag(u), wrapping.
    int64_t bias, divisor;
    /// 0, 1 or 2: a value is r, or a running sum once or twice from value and delta
    /// (the last value and the last first difference; updated).
    int order;
    int64_t value, delta;
} routelog_four_streams;

/// Groups of four values decoded between two checks of the positions against the reach.
#define ROUTELOG_FOUR_STREAM_GROUPS_PER_CHECK 8

/// Decodes values into out[0...] four at a time, as long as a whole batch of groups is
/// left in k and every position is at most the reach. Returns how many values it wrote
/// (a multiple of 4), with the positions and sums after them. A window where no code
/// starts stops it: it then returns 0 with every position INT64_MAX (the caller's
/// checked loop finds the damage). Reads may pass a stream's end into the next stream's
/// bits: the caller checks the ends after. With BMI2 when the processor has it (and the
/// running sums four at a time with AVX2), the same values either way.
size_t routelog_decode_four_streams(routelog_four_streams *streams, int64_t *out, size_t k);

/// The same without BMI2 (for tests).
size_t routelog_decode_four_streams_portable(routelog_four_streams *streams, int64_t *out, size_t k);

/// A version 2 column with zero runs being read from its one stream, for
/// routelog_decode_run_stream: the fields as in routelog_four_streams, and the stream's
/// end (in bits). Order 0 (and value and delta 0) when the fields after divisor are
/// left out of an initializer.
typedef struct {
    const uint8_t *bytes;
    int64_t position, limit;
    const uint64_t *entries;
    uint64_t mask;
    int64_t bias, divisor;
    /// 0, 1 or 2, with value and delta (updated), as in routelog_four_streams.
    int order;
    int64_t value, delta;
} routelog_run_stream;

/// Decodes values into out[0...] (a run token writes its run of residuals equal to the
/// bias), running sums for the order from value and delta, while the position is before
/// the stream's end; stops before a token it cannot take whole (an entry marked slow, or
/// a run past k), for the caller's checked loop. Returns how many values it wrote, with
/// the position and sums after them. With BMI2 when the processor has it, the same
/// values either way.
size_t routelog_decode_run_stream(routelog_run_stream *stream, int64_t *out, size_t k);

/// A column's values from its start values and residuals, in place (wrapping): from
/// values[1] on, each value is the one before plus its residual (order 1); from
/// values[2] on, each first difference is the one before plus the residual, the first
/// being values[1] - values[0] (order 2). Any other order leaves the values as they are.
/// Four values at a time with AVX2 when the processor has it, the same integers either way.
void routelog_running_sums(int64_t *values, size_t count, int order);

/// The same without AVX2 (for tests).
void routelog_running_sums_portable(int64_t *values, size_t count, int order);

/// The same without BMI2 (for tests).
size_t routelog_decode_run_stream_portable(routelog_run_stream *stream, int64_t *out, size_t k);

/// Gives the pages of freed heap memory back to the system: malloc_trim(0) with glibc,
/// nothing elsewhere (Apple's allocator returns freed large blocks itself).
void routelog_give_back_freed_memory(void);

/// Buffers smaller than this are left to fault their pages in as they are written.
#define ROUTELOG_PREPARE_FOR_WRITING_MINIMUM (64 * 1024)

/// Makes the pages of a buffer about to be written whole (a load's new points) present
/// in one call for each run of pages the process does not have yet, rather than one
/// page fault for each: on Linux, mincore, then madvise(MADV_POPULATE_WRITE) on the
/// runs it finds missing (memory the allocator gave back to the system after the last
/// load: 72 faults for a 3,600-point walk's 288 KB). Only pages wholly inside the
/// buffer, and only for buffers of at least ROUTELOG_PREPARE_FOR_WRITING_MINIMUM bytes;
/// the contents are unchanged. Does nothing elsewhere, on kernels without
/// MADV_POPULATE_WRITE (before 5.14), or when a call fails: the writes then fault the
/// pages in as before.
void routelog_prepare_for_writing(void *start, size_t length);

/// Fills `count` bytes at `buffer` from the system's generator of secure random bytes
/// (getrandom on Linux, arc4random_buf on Darwin) in one call where it can. Returns 0,
/// or errno when the system gave none (the caller falls back to its own generator).
int routelog_random_bytes(void *buffer, size_t count);

/// Takes an exclusive, non-blocking lock on the whole file `fd`. The lock belongs to
/// the open file description (OFD lock on Linux, flock elsewhere), so two opens in one
/// process conflict too, and closing another descriptor of the file does not drop it.
/// Returns 0 on success, or the errno value (EAGAIN/EWOULDBLOCK when held elsewhere).
int routelog_lock_exclusive(int fd);

/// Releases the lock taken by routelog_lock_exclusive. Returns 0 or errno.
int routelog_unlock(int fd);

/// Returns 1 when some other open file description holds a lock on the file, 0 when
/// none does, or -errno. Never takes the lock on Linux.
int routelog_lock_is_held(int fd);

/// Takes an exclusive, non-blocking flock on the open directory `fd`: deleting or
/// replacing a file in the directory cannot escape it. Returns 0, or errno
/// (EWOULDBLOCK when another open file description holds it).
int routelog_lock_directory(int fd);

/// Releases the flock routelog_lock_directory took. Returns 0 or errno.
int routelog_unlock_directory(int fd);

/// Registers a descriptor that holds one of a writer's locks: in a child made with
/// fork(), it is pointed at /dev/null before fork() returns there, so that the child
/// does not keep the store locked (fork_release.c). Returns 0, or -1 when 4,096 are
/// registered already (the store's open then refuses).
int routelog_release_in_forked_child(int fd);

/// Takes `fd` off that list; call before closing it.
void routelog_forget_for_forked_child(int fd);

/// Starts a stretch that fork() waits for, in every thread (fork_release.c, "the fork
/// guard"): an open of a descriptor that is to hold a lock, and its registration with
/// routelog_release_in_forked_child, run between this and routelog_fork_guard_leave, so
/// that no child is forked holding the description unregistered. Waits while a fork is
/// under way. Stretches nest. Nothing inside may fork, or wait for a thread that forks;
/// keep it to the open, an fstat and the registration.
void routelog_fork_guard_enter(void);

/// Ends the stretch routelog_fork_guard_enter started.
void routelog_fork_guard_leave(void);

/// Makes written data of `fd` durable: fdatasync on Linux, F_FULLFSYNC on Darwin
/// (falling back to fsync where the file system refuses it). Returns 0 or errno.
int routelog_sync_data(int fd);

/// Like routelog_sync_data, but also metadata (fsync; F_FULLFSYNC on Darwin).
int routelog_sync_all(int fd);

/// Orders the written data of `fd` before every later write, without waiting for it to
/// reach permanent storage. On Darwin: F_BARRIERFSYNC (fsync, then a barrier the drive
/// must not reorder writes across; APFS and HFS+ on Apple flash), falling back to fsync
/// where the file system refuses it. Elsewhere: fdatasync, the closest (on Linux it also
/// flushes the drive's cache, so it is as strong as routelog_sync_data).
/// After a power loss the data may be missing, but never a later write without it; an
/// app or kernel crash loses nothing. Returns 0 or errno.
int routelog_sync_barrier(int fd);

/// Renames `from` to `to` unless something is at `to` (EEXIST then): never replaces a
/// file, a link or anything else (renameat2's RENAME_NOREPLACE on Linux, renamex_np's
/// RENAME_EXCL on Darwin; a look then a rename on a file system with neither). Returns
/// 0 or errno.
int routelog_rename_exclusive(const char *from, const char *to);

/// Swaps the files at `a` and `b` in one step, both of which must exist: each name then
/// leads to what the other led to, and at no moment does either lead to nothing
/// (renameat2's RENAME_EXCHANGE on Linux, renamex_np's RENAME_SWAP on Darwin). Returns
/// 0 or errno: ENOTSUP where the system or the file system cannot swap (no look-then-
/// rename stand-in here: that is the caller's to choose).
int routelog_rename_exchange(const char *a, const char *b);

/// The open(2) flag of a descriptor of a directory that only looks names up in it:
/// O_PATH on Linux, which needs the directory's search permission only (no read
/// permission, as O_RDONLY needs); POSIX's O_SEARCH where the system has it; else 0.
int routelog_search_only_flag(void);

/// When the open file `fd` was made, for the life of its inode: statx's birth time on
/// Linux, st_birthtimespec on Darwin. An inode number a removed file freed is soon given
/// to the next new file (ext4 gives it at once): the birth time tells the two apart,
/// where the device and inode cannot. Returns 0 or errno: ENOTSUP where the system or
/// the file system records no birth time.
int routelog_birth_time(int fd, int64_t *seconds, int64_t *nanoseconds);

/// routelog_birth_time of the file at `path` (a link itself, not what it points at),
/// without opening it.
int routelog_birth_time_of_name(const char *path, int64_t *seconds, int64_t *nanoseconds);

// Descriptor-relative calls: the store's lost/ is used through one descriptor of it
// (LostAndFound), opened in the store's directory as the writer holds it (HeldDirectory),
// so that a link or another directory put at either path meanwhile leads nothing elsewhere.

/// routelog_rename_exclusive with each name relative to an open directory (`from_dir`,
/// `to_dir`; AT_FDCWD for the current directory), as renameat does: renameat2 with
/// RENAME_NOREPLACE on Linux, renameatx_np with RENAME_EXCL on Darwin, a look (fstatat,
/// never following a link) then renameat on a file system with neither. Returns 0 or
/// errno (EEXIST when something is at `to`).
int routelog_renameat_exclusive(int from_dir, const char *from, int to_dir, const char *to);

/// Gives the open file or directory `fd` an iOS Data Protection class: 1 (A, complete),
/// 2 (B, complete unless open), 3 (C, complete until first user authentication),
/// 4 (D, none), the PROTECTION_CLASS_* numbers of Darwin's kernel. A directory's class is
/// the default of the files later created in it. Returns 0 or errno: ENOTSUP on systems
/// without data protection classes (every non-Apple system), where nothing changes.
int routelog_set_protection_class(int fd, int protection_class);

/// The Data Protection class of `fd` (1...4, or 0 for none set), or -errno (-ENOTSUP on
/// systems without data protection classes).
int routelog_get_protection_class(int fd);

#endif
