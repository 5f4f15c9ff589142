// The hot loops of a version 2 column's read (format-spec.md, "PointBlock", "Version
// 2"): four streams, or one stream with zero runs; every value of a load's columns goes
// through one of them. Four bit positions in registers, one table lookup each; the running sums in a
// pass of their own. With BMI2 the variable shifts and masks are single instructions
// (SHRX, BZHI), and with AVX2 the running sums go four at a time; the outcome is the
// same integers either way.
#include "CRouteLogSystem.h"
#include "processor_features.h"

#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the streams are read as little-endian 8-byte windows"
#endif

// The layout of a decode table entry (Codec/V2/HuffmanCode.swift, HuffmanDecodeTable).
#define ENTRY_TOTAL_MASK 0x7Full
#define ENTRY_CODE_SHIFT 7
#define ENTRY_CODE_MASK 0x3Full
#define ENTRY_RUN (1ull << 13)
#define ENTRY_SLOW (1ull << 14)
#define ENTRY_BASE_SHIFT 16

// Groups of four values between two checks of the positions against the reach.
#define GROUPS_PER_CHECK 8

static inline __attribute__((always_inline)) uint64_t window_at(const uint8_t *bytes, int64_t position) {
    uint64_t window;
    memcpy(&window, bytes + (position >> 3), 8);
    return window >> (position & 7);
}

// u of the entry's token: its base plus the extra bits after its code.
static inline __attribute__((always_inline)) uint64_t entry_value(uint64_t entry, uint64_t window) {
    uint64_t total = entry & ENTRY_TOTAL_MASK, length = (entry >> ENTRY_CODE_SHIFT) & ENTRY_CODE_MASK;
    return (entry >> ENTRY_BASE_SHIFT) + ((window >> length) & ((1ull << (total - length)) - 1));
}

// The bits the token takes: the one field the next read of the stream waits on.
static inline __attribute__((always_inline)) uint64_t entry_bits(uint64_t entry) { return entry & ENTRY_TOTAL_MASK; }

// r = bias + divisor × unzigzag(u), wrapping; then the column's value for its order.
static inline __attribute__((always_inline)) int64_t next_value(uint64_t bias, uint64_t divisor, uint64_t *value,
                                                                uint64_t *delta, uint64_t u, int order) {
    uint64_t r = bias + ((u >> 1) ^ (0 - (u & 1))) * divisor;
    if (order == 0) return (int64_t)r;
    if (order == 2) *delta += r;
    *value += order == 1 ? r : *delta;
    return (int64_t)*value;
}

// A token whose entry is marked slow: no code starts at the window (returns 0 with
// *failed set), or a value whose base does not fit an entry, whose extra bits are read
// here, 32 at a time.
__attribute__((noinline))
static uint64_t slow_value(const uint8_t *bytes, int64_t *position, uint64_t entry, int *failed) {
    unsigned length = (unsigned)(entry & ENTRY_TOTAL_MASK), symbol = (unsigned)(entry >> ENTRY_BASE_SHIFT);
    if (length == 0) {
        *failed = 1;
        return 0;
    }
    // The value tokens (format-spec.md, "Tokens"): 16 direct ones, then 4 per exponent.
    unsigned extra = symbol < 16 ? 0 : ((symbol - 16) >> 2) + 2;
    uint64_t u = symbol < 16 ? symbol : (uint64_t)(4 | (symbol & 3)) << extra;
    *position += length;
    for (unsigned done = 0; done < extra;) {
        unsigned chunk = extra - done < 32 ? extra - done : 32;
        u += (window_at(bytes, *position) & ((1ull << chunk) - 1)) << done;
        *position += chunk;
        done += chunk;
    }
    return u;
}

// The next u of the stream at *position.
static inline __attribute__((always_inline)) uint64_t next_u(const uint8_t *bytes, int64_t *position,
                                                             const uint64_t *entries, uint64_t mask, int *failed) {
    uint64_t window = window_at(bytes, *position);
    uint64_t entry = entries[window & mask];
    if (__builtin_expect((entry & ENTRY_SLOW) != 0, 0)) {
        // Through a copy, so that the position itself never leaves its register.
        int64_t at = *position;
        uint64_t u = slow_value(bytes, &at, entry, failed);
        *position = at;
        return u;
    }
    *position += (int64_t)entry_bits(entry);
    return entry_value(entry, window);
}

// The second pass of decode_four: u[j] to the column's values in place, one at a time.
static inline __attribute__((always_inline)) void integrate_scalar(int64_t *out, size_t count, uint64_t bias,
                                                                   uint64_t divisor, uint64_t *value,
                                                                   uint64_t *delta, int order) {
    const uint64_t *u = (const uint64_t *)out;
    uint64_t v = *value, d = *delta;
    for (size_t j = 0; j < count; j++) out[j] = next_value(bias, divisor, &v, &d, u[j], order);
    *value = v;
    *delta = d;
}

typedef void (*integrator)(int64_t *out, size_t count, uint64_t bias, uint64_t divisor, uint64_t *value,
                           uint64_t *delta, int order);

// The loop for one order, in two passes: the tokens' values u first (four chains of
// position, window and table entry, with little else live, so that they stay in
// registers), then the residuals and running sums over what was read (`integrate`). A
// window where no code starts stops the loop: the caller's checked loop then finds the
// damage.
static inline __attribute__((always_inline)) size_t decode_four(routelog_four_streams *restrict s,
                                                                int64_t *restrict out, size_t k, int order,
                                                                integrator integrate) {
    const uint8_t *bytes = s->bytes;
    const uint64_t *entries = s->entries;
    const uint64_t mask = s->mask;
    const int64_t reach = s->reach;
    uint64_t *u = (uint64_t *)out;
    int64_t p0 = s->positions[0], p1 = s->positions[1], p2 = s->positions[2], p3 = s->positions[3];
    int failed = 0;
    size_t i = 0;
    while (i + 4 * GROUPS_PER_CHECK <= k && p0 <= reach && p1 <= reach && p2 <= reach && p3 <= reach) {
        for (int g = 0; g < GROUPS_PER_CHECK; g++, i += 4) {
            u[i] = next_u(bytes, &p0, entries, mask, &failed);
            u[i + 1] = next_u(bytes, &p1, entries, mask, &failed);
            u[i + 2] = next_u(bytes, &p2, entries, mask, &failed);
            u[i + 3] = next_u(bytes, &p3, entries, mask, &failed);
        }
        if (failed) {
            i = 0;
            break;
        }
    }
    s->positions[0] = failed ? INT64_MAX : p0;
    s->positions[1] = failed ? INT64_MAX : p1;
    s->positions[2] = failed ? INT64_MAX : p2;
    s->positions[3] = failed ? INT64_MAX : p3;
    uint64_t value = (uint64_t)s->value, delta = (uint64_t)s->delta;
    integrate(out, i, (uint64_t)s->bias, (uint64_t)s->divisor, &value, &delta, order);
    s->value = (int64_t)value;
    s->delta = (int64_t)delta;
    return i;
}

// A column with zero runs, from its one stream: each token is a residual, or a run of
// residuals equal to the bias. Every read is checked against the stream's end, as the
// caller's loop checks it; the loop stops before a token it cannot take whole (the end
// reached, an entry marked slow, a run past k), which the caller's loop then reads.
static inline __attribute__((always_inline)) size_t decode_runs(routelog_run_stream *restrict s,
                                                                int64_t *restrict out, size_t k) {
    const uint8_t *bytes = s->bytes;
    const uint64_t *entries = s->entries;
    const uint64_t mask = s->mask, bias = (uint64_t)s->bias, divisor = (uint64_t)s->divisor;
    const int64_t limit = s->limit;
    int64_t p = s->position;
    size_t i = 0;
    while (i < k && p < limit) {
        uint64_t window = window_at(bytes, p);
        uint64_t entry = entries[window & mask];
        if (entry & ENTRY_SLOW) break;
        uint64_t v = entry_value(entry, window);
        if (entry & ENTRY_RUN) {
            if (v > k - i) break;
            for (uint64_t j = 0; j < v; j++) out[i + j] = (int64_t)bias;
            i += v;
        } else {
            out[i++] = (int64_t)(bias + ((v >> 1) ^ (0 - (v & 1))) * divisor);
        }
        p += (int64_t)entry_bits(entry);
    }
    s->position = p;
    return i;
}

// The loop made for the column's order: one copy per order, with no branch on it inside.
static inline __attribute__((always_inline)) size_t decode_for_order(routelog_four_streams *s, int64_t *out,
                                                                     size_t k, integrator integrate) {
    switch (s->order) {
    case 0: return decode_four(s, out, k, 0, integrate);
    case 1: return decode_four(s, out, k, 1, integrate);
    default: return decode_four(s, out, k, 2, integrate);
    }
}

static void integrate_portable(int64_t *out, size_t count, uint64_t bias, uint64_t divisor, uint64_t *value,
                               uint64_t *delta, int order) {
    switch (order) {
    case 0: integrate_scalar(out, count, bias, divisor, value, delta, 0); break;
    case 1: integrate_scalar(out, count, bias, divisor, value, delta, 1); break;
    default: integrate_scalar(out, count, bias, divisor, value, delta, 2); break;
    }
}

size_t routelog_decode_four_streams_portable(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k, integrate_portable);
}

size_t routelog_decode_run_stream_portable(routelog_run_stream *s, int64_t *out, size_t k) {
    return decode_runs(s, out, k);
}

#if defined(__x86_64__)
#include <immintrin.h>

// Running sums of four 64-bit lanes: [a, b, c, d] to [a, a+b, a+b+c, a+b+c+d].
__attribute__((target("avx2"), always_inline))
static inline __m256i running_sums(__m256i x) {
    __m256i shifted = _mm256_blend_epi32(_mm256_permute4x64_epi64(x, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_si256(), 0x03);
    x = _mm256_add_epi64(x, shifted);
    return _mm256_add_epi64(x, _mm256_permute2x128_si256(x, x, 0x08));  // [0, 0, x0, x1] added
}

// The second pass four values at a time: the same wrapping integers as integrate_scalar.
// A 64-bit product is three 32-bit ones (the low 64 bits of z × divisor); a divisor of 1,
// the common case, skips them. Each group's running sums start from the last lane of the
// group before, which stays in a register.
__attribute__((target("avx2"), always_inline))
static inline void integrate_avx2_order(int64_t *out, size_t count, uint64_t bias, uint64_t divisor,
                                        uint64_t *value, uint64_t *delta, const int order) {
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256(), vbias = _mm256_set1_epi64x((long long)bias);
    const __m256i divisor_low = _mm256_set1_epi64x((long long)divisor),
                  divisor_high = _mm256_set1_epi64x((long long)(divisor >> 32));
    __m256i last_value = _mm256_set1_epi64x((long long)*value), last_delta = _mm256_set1_epi64x((long long)*delta);
    size_t j = 0;
    for (; j + 4 <= count; j += 4) {
        __m256i u = _mm256_loadu_si256((const __m256i *)(out + j));
        __m256i z = _mm256_xor_si256(_mm256_srli_epi64(u, 1), _mm256_sub_epi64(zero, _mm256_and_si256(u, one)));
        if (divisor != 1) {
            __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(z, 32), divisor_low),
                                             _mm256_mul_epu32(z, divisor_high));
            z = _mm256_add_epi64(_mm256_mul_epu32(z, divisor_low), _mm256_slli_epi64(cross, 32));
        }
        __m256i r = _mm256_add_epi64(z, vbias);
        // The group's own sums first, then what came before added to every lane: the
        // only chain from one group to the next is that one addition.
        if (order == 2) {
            __m256i sums = running_sums(r);
            r = _mm256_add_epi64(sums, last_delta);
            last_delta = _mm256_add_epi64(last_delta, _mm256_permute4x64_epi64(sums, _MM_SHUFFLE(3, 3, 3, 3)));
        }
        if (order >= 1) {
            __m256i sums = running_sums(r);
            r = _mm256_add_epi64(sums, last_value);
            last_value = _mm256_add_epi64(last_value, _mm256_permute4x64_epi64(sums, _MM_SHUFFLE(3, 3, 3, 3)));
        }
        _mm256_storeu_si256((__m256i *)(out + j), r);
    }
    *value = (uint64_t)_mm256_extract_epi64(last_value, 0);
    *delta = (uint64_t)_mm256_extract_epi64(last_delta, 0);
    integrate_scalar(out + j, count - j, bias, divisor, value, delta, order);
}

__attribute__((target("avx2")))
static void integrate_avx2(int64_t *out, size_t count, uint64_t bias, uint64_t divisor, uint64_t *value,
                           uint64_t *delta, int order) {
    switch (order) {
    case 0: integrate_avx2_order(out, count, bias, divisor, value, delta, 0); break;
    case 1: integrate_avx2_order(out, count, bias, divisor, value, delta, 1); break;
    default: integrate_avx2_order(out, count, bias, divisor, value, delta, 2); break;
    }
}

__attribute__((target("bmi,bmi2")))
static size_t decode_bmi2(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k, routelog_has_avx2() ? integrate_avx2 : integrate_portable);
}

__attribute__((target("bmi,bmi2")))
static size_t decode_runs_bmi2(routelog_run_stream *s, int64_t *out, size_t k) { return decode_runs(s, out, k); }

size_t routelog_decode_four_streams(routelog_four_streams *s, int64_t *out, size_t k) {
    return routelog_has_bmi2() ? decode_bmi2(s, out, k) : decode_for_order(s, out, k, integrate_portable);
}

size_t routelog_decode_run_stream(routelog_run_stream *s, int64_t *out, size_t k) {
    return routelog_has_bmi2() ? decode_runs_bmi2(s, out, k) : decode_runs(s, out, k);
}
#else
size_t routelog_decode_four_streams(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k, integrate_portable);
}

size_t routelog_decode_run_stream(routelog_run_stream *s, int64_t *out, size_t k) { return decode_runs(s, out, k); }
#endif
