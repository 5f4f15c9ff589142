// The hot loops of a version 2 column's read (format-spec.md, "PointBlock", "Version
// 2"): four streams, or one stream with zero runs; every value of a load's columns goes
// through one of them. Four bit positions in registers, one table lookup each; the running sums in a
// pass of their own. With BMI2 the variable shifts and masks are single instructions
// (SHRX, BZHI); the outcome is the same integers either way.
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

// The loop for one order, in two passes: the tokens' values u first (four chains of
// position, window and table entry, with little else live, so that they stay in
// registers), then the residuals and running sums over what was read. A window where no
// code starts stops the loop: the caller's checked loop then finds the damage.
static inline __attribute__((always_inline)) size_t decode_four(routelog_four_streams *restrict s,
                                                                int64_t *restrict out, size_t k, int order) {
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
    const uint64_t bias = (uint64_t)s->bias, divisor = (uint64_t)s->divisor;
    uint64_t value = (uint64_t)s->value, delta = (uint64_t)s->delta;
    for (size_t j = 0; j < i; j++) out[j] = next_value(bias, divisor, &value, &delta, u[j], order);
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
                                                                     size_t k) {
    switch (s->order) {
    case 0: return decode_four(s, out, k, 0);
    case 1: return decode_four(s, out, k, 1);
    default: return decode_four(s, out, k, 2);
    }
}

size_t routelog_decode_four_streams_portable(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k);
}

size_t routelog_decode_run_stream_portable(routelog_run_stream *s, int64_t *out, size_t k) {
    return decode_runs(s, out, k);
}

#if defined(__x86_64__)
__attribute__((target("bmi,bmi2")))
static size_t decode_bmi2(routelog_four_streams *s, int64_t *out, size_t k) { return decode_for_order(s, out, k); }

__attribute__((target("bmi,bmi2")))
static size_t decode_runs_bmi2(routelog_run_stream *s, int64_t *out, size_t k) { return decode_runs(s, out, k); }

size_t routelog_decode_four_streams(routelog_four_streams *s, int64_t *out, size_t k) {
    return routelog_has_bmi2() ? decode_bmi2(s, out, k) : decode_for_order(s, out, k);
}

size_t routelog_decode_run_stream(routelog_run_stream *s, int64_t *out, size_t k) {
    return routelog_has_bmi2() ? decode_runs_bmi2(s, out, k) : decode_runs(s, out, k);
}
#else
size_t routelog_decode_four_streams(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k);
}

size_t routelog_decode_run_stream(routelog_run_stream *s, int64_t *out, size_t k) { return decode_runs(s, out, k); }
#endif
