// The hot loops of a version 2 column's read (format-spec.md, "PointBlock", "Version
// 2"): four streams, or one stream with zero runs; every value of a load's columns goes
// through one of them. Four bit positions in registers, each stream's tokens four to a
// window; their values, and the running sums, a batch behind the tokens. With BMI2 the
// variable shifts and masks are single instructions (SHRX, BZHI), and with AVX2 the
// values and the running sums go four at a time; the outcome is the same integers
// either way.
#include "CRouteLogSystem.h"
#include "processor_features.h"
#include "tokens.h"

#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the streams are read as little-endian 8-byte windows"
#endif

// The layout of a decode table entry (Codec/V2/HuffmanCode.swift, HuffmanDecodeTable).
// The slow flag is the top bit of the low byte, above the token's bits: that byte, read
// whole, is the token's bits for an entry the loops take, and 128 or more for one they
// must leave, so that one comparison of a sum of such bytes does both checks.
#define ENTRY_TOTAL_MASK 0x7Full
#define ENTRY_SLOW (1ull << 7)
#define ENTRY_CODE_SHIFT 8
#define ENTRY_CODE_MASK 0x3Full
#define ENTRY_RUN (1ull << 14)
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

// The bits the token takes (the one field the next read of the stream waits on), or 128
// and more for a slow entry: a sum of these over tokens that fit one window (57 bits or
// fewer) says that none of them is slow.
static inline __attribute__((always_inline)) uint64_t entry_bits(uint64_t entry) { return entry & 0xFF; }

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
    unsigned extra = routelog_value_token_extra_bits(symbol);
    uint64_t u = routelog_value_token_base(symbol);
    *position += length;
    for (unsigned done = 0; done < extra;) {
        unsigned chunk = extra - done < 32 ? extra - done : 32;
        u += (window_at(bytes, *position) & ((1ull << chunk) - 1)) << done;
        *position += chunk;
        done += chunk;
    }
    return u;
}

// The fast loop's half of a token: its window and table entry are stored, and the
// position moves past it; turning the pair into u (extract_*) is left to a pass over a
// batch, four at a time where the processor can, so that the loop whose positions chain
// from one token to the next does little else. A slow token's u is read here, and stored
// as a window with an entry that keeps the whole window (ENTRY_WHOLE_WINDOW).
#define ENTRY_WHOLE_WINDOW 64ull  // total 64 bits, code length 0, base 0

static inline __attribute__((always_inline)) void next_token(const uint8_t *bytes, int64_t *position,
                                                             const uint64_t *entries, uint64_t mask,
                                                             uint64_t *window_out, uint64_t *entry_out, int *failed) {
    uint64_t window = window_at(bytes, *position);
    uint64_t entry = entries[window & mask];
    if (__builtin_expect((entry & ENTRY_SLOW) != 0, 0)) {
        int64_t at = *position;
        *window_out = slow_value(bytes, &at, entry, failed);
        *entry_out = ENTRY_WHOLE_WINDOW;
        *position = at;
        return;
    }
    *position += (int64_t)entry_bits(entry);
    *window_out = window;
    *entry_out = entry;
}

// Two tokens of one stream from one window: the second one's table entry is looked up
// in the window shifted past the first, without waiting for a load at the new position
// (the chain from one position to the next is what the loop waits on). A window holds at
// least 57 bits, so both are taken this way only when their bits add up to 57 or fewer
// and neither is slow; otherwise each is read on its own.
static inline __attribute__((always_inline)) void next_two_tokens(const uint8_t *bytes, int64_t *position,
                                                                  const uint64_t *entries, uint64_t mask,
                                                                  uint64_t *windows, uint64_t *entries_out,
                                                                  int *failed) {
    uint64_t window = window_at(bytes, *position);
    uint64_t entry = entries[window & mask];
    uint64_t first = entry_bits(entry);
    uint64_t second_window = window >> (first & 63);
    uint64_t second = entries[second_window & mask];
    uint64_t bits = first + entry_bits(second);
    if (__builtin_expect(bits > 57, 0)) {  // too long for the window, or one is slow
        next_token(bytes, position, entries, mask, &windows[0], &entries_out[0], failed);
        next_token(bytes, position, entries, mask, &windows[4], &entries_out[4], failed);
        return;
    }
    *position += (int64_t)bits;
    windows[0] = window;
    entries_out[0] = entry;
    windows[4] = second_window;
    entries_out[4] = second;
}

// Four tokens of one stream from one window, as next_two_tokens takes two: each entry
// is looked up in the window shifted past the tokens before it (a shift by the entry
// itself: its low six bits are its total when it is not slow). The loop runs at the pace
// of its instructions more than of the chain from one position to the next, and this
// way the window's load, its shift and the check come once for four tokens: the
// four-stream loop ran about 30% fewer instructions than with two tokens a window
// (callgrind). Taken only when the four add up to 57 bits or fewer and none is slow;
// otherwise two and two (next_two_tokens).
static inline __attribute__((always_inline)) void next_four_tokens(const uint8_t *bytes, int64_t *position,
                                                                   const uint64_t *entries, uint64_t mask,
                                                                   uint64_t *windows, uint64_t *entries_out,
                                                                   int *failed) {
    // Each pair is stored as soon as it is known, so that few values stay live (the
    // loop keeps four streams' positions in registers); the slower way below, when it is
    // taken, stores every pair again.
    uint64_t w = window_at(bytes, *position), e = entries[w & mask], bits = entry_bits(e);
    windows[0] = w, entries_out[0] = e;
    w >>= e & 63, e = entries[w & mask], bits += entry_bits(e);
    windows[4] = w, entries_out[4] = e;
    w >>= e & 63, e = entries[w & mask], bits += entry_bits(e);
    windows[8] = w, entries_out[8] = e;
    w >>= e & 63, e = entries[w & mask], bits += entry_bits(e);
    windows[12] = w, entries_out[12] = e;
    if (__builtin_expect(bits > 57, 0)) {  // too long for the window, or one is slow
        next_two_tokens(bytes, position, entries, mask, &windows[0], &entries_out[0], failed);
        next_two_tokens(bytes, position, entries, mask, &windows[8], &entries_out[8], failed);
        return;
    }
    *position += (int64_t)bits;
}

// u of each (window, entry) pair of a batch, in place of the windows: entry_value for
// every pair, with ENTRY_WHOLE_WINDOW's 64 extra bits kept whole.
static inline __attribute__((always_inline)) void extract_scalar(uint64_t *u, const uint64_t *batch_entries,
                                                                 size_t count) {
    for (size_t j = 0; j < count; j++) {
        uint64_t entry = batch_entries[j];
        uint64_t total = entry & ENTRY_TOTAL_MASK, length = (entry >> ENTRY_CODE_SHIFT) & ENTRY_CODE_MASK;
        uint64_t extra = total - length, keep = extra >= 64 ? ~0ull : (1ull << extra) - 1;
        u[j] = (entry >> ENTRY_BASE_SHIFT) + ((u[j] >> length) & keep);
    }
}

// u[j] to the column's values in place, one at a time.
static inline __attribute__((always_inline)) void integrate_scalar(int64_t *out, size_t count, uint64_t bias,
                                                                   uint64_t divisor, uint64_t *value,
                                                                   uint64_t *delta, int order) {
    const uint64_t *u = (const uint64_t *)out;
    uint64_t v = *value, d = *delta;
    for (size_t j = 0; j < count; j++) out[j] = next_value(bias, divisor, &v, &d, u[j], order);
    *value = v;
    *delta = d;
}

// Values from (window, entry) pairs, in place of the windows: u of each pair, then the
// residuals and the running sums from *value and *delta (updated).
typedef void (*pair_values)(int64_t *out, const uint64_t *pair_entries, size_t count, uint64_t bias,
                            uint64_t divisor, uint64_t *value, uint64_t *delta, int order);

static inline __attribute__((always_inline)) void values_portable(int64_t *out, const uint64_t *pair_entries,
                                                                  size_t count, uint64_t bias, uint64_t divisor,
                                                                  uint64_t *value, uint64_t *delta, int order) {
    extract_scalar((uint64_t *)out, pair_entries, count);
    integrate_scalar(out, count, bias, divisor, value, delta, order);
}

// The loop for one order. Each batch's tokens go as four chains of position, window and
// table entry, with little else live, so that they stay in registers; each chain waits on
// its loads, and meanwhile the processor has the batch before's values to work on
// (`values`: u from the windows and entries, the residuals, the running sums), a part
// between each step of this batch's tokens. Made after the batch's tokens, or in a pass
// of their own, the values waited for the chains and the chains for them; interleaved,
// the two overlap (a third fewer cycles a value in a walk's columns). A window where no
// code starts stops the loop: the caller's checked loop then finds the damage.
static inline __attribute__((always_inline)) size_t decode_four(routelog_four_streams *restrict s,
                                                                int64_t *restrict out, size_t k, int order,
                                                                pair_values values) {
    const uint8_t *bytes = s->bytes;
    const uint64_t *entries = s->entries;
    const uint64_t mask = s->mask;
    const int64_t reach = s->reach;
    const uint64_t bias = (uint64_t)s->bias, divisor = (uint64_t)s->divisor;
    uint64_t *u = (uint64_t *)out;
    // This batch's entries and the batch before's, in turn.
    uint64_t batch_entries[2][4 * GROUPS_PER_CHECK];
    int64_t *pending = NULL;  // the batch before, whose values are still to make
    const uint64_t *pending_entries = NULL;
    uint64_t value = (uint64_t)s->value, delta = (uint64_t)s->delta;
    int64_t p0 = s->positions[0], p1 = s->positions[1], p2 = s->positions[2], p3 = s->positions[3];
    int failed = 0, turn = 0;
    size_t i = 0;
    while (i + 4 * GROUPS_PER_CHECK <= k && p0 <= reach && p1 <= reach && p2 <= reach && p3 <= reach) {
        uint64_t *e = batch_entries[turn];
        // Four groups at a time: each stream's four tokens from one window.
        for (int g = 0; g < GROUPS_PER_CHECK; g += 4, e += 16) {
            size_t at = i + 4 * (size_t)g;
            next_four_tokens(bytes, &p0, entries, mask, &u[at], &e[0], &failed);
            next_four_tokens(bytes, &p1, entries, mask, &u[at + 1], &e[1], &failed);
            next_four_tokens(bytes, &p2, entries, mask, &u[at + 2], &e[2], &failed);
            next_four_tokens(bytes, &p3, entries, mask, &u[at + 3], &e[3], &failed);
            if (pending) values(pending + 4 * g, pending_entries + 4 * g, 16, bias, divisor, &value, &delta, order);
        }
        if (failed) {
            i = 0;
            pending = NULL;
            break;
        }
        pending = out + i;
        pending_entries = batch_entries[turn];
        turn ^= 1;
        i += 4 * GROUPS_PER_CHECK;
    }
    if (pending) values(pending, pending_entries, 4 * GROUPS_PER_CHECK, bias, divisor, &value, &delta, order);
    s->positions[0] = failed ? INT64_MAX : p0;
    s->positions[1] = failed ? INT64_MAX : p1;
    s->positions[2] = failed ? INT64_MAX : p2;
    s->positions[3] = failed ? INT64_MAX : p3;
    if (!failed) {  // else the sums stay as they came: the caller's checked loop starts again
        s->value = (int64_t)value;
        s->delta = (int64_t)delta;
    }
    return i;
}

// A run of `length` residuals equal to the bias, at out (room values up to k), as the
// column's values for its order: the running sums go on through the run (order 1: each
// value the one before plus the bias; order 2: each difference the one before plus the
// bias), from *value and *delta (updated), so that a run column needs no pass of sums
// after its decode. Wrapping, as next_value.
static inline __attribute__((always_inline)) void fill_run(int64_t *out, uint64_t length, size_t room, uint64_t bias,
                                                           uint64_t *value, uint64_t *delta, int order) {
    uint64_t v = *value, d = *delta;
    // A short run (most are) as four stores with no loop: whatever lands past the run is
    // written again by the values after it, and room for four means none lands past k.
    // Each of the four is worked out from v and d alone (the j-th of a run, j = 1...4:
    // v + j b, or v + j d + b j(j+1)/2), not from the one before, and the sums then
    // jump over the run's length the same way.
    if (length <= 4 && room >= 4) {
        if (order == 0) {
            out[0] = (int64_t)bias, out[1] = (int64_t)bias, out[2] = (int64_t)bias, out[3] = (int64_t)bias;
            return;
        }
        if (order == 1) {
            out[0] = (int64_t)(v + bias), out[1] = (int64_t)(v + 2 * bias);
            out[2] = (int64_t)(v + 3 * bias), out[3] = (int64_t)(v + 4 * bias);
            *value = v + length * bias;
            return;
        }
        out[0] = (int64_t)(v + d + bias), out[1] = (int64_t)(v + 2 * d + 3 * bias);
        out[2] = (int64_t)(v + 3 * d + 6 * bias), out[3] = (int64_t)(v + 4 * d + 10 * bias);
        *value = v + length * d + (length * (length + 1) / 2) * bias;
        *delta = d + length * bias;
        return;
    }
    for (uint64_t j = 0; j < length; j++) {
        if (order == 2) d += bias;
        if (order >= 1) v += order == 1 ? bias : d;
        out[j] = order == 0 ? (int64_t)bias : (int64_t)v;
    }
    *value = v;
    *delta = d;
}

// A column with zero runs, from its one stream: each token is a residual, or a run of
// residuals equal to the bias. Every read is checked against the stream's end, as the
// caller's loop checks it; the loop stops before a token it cannot take whole (the end
// reached, an entry marked slow, a run past k), which the caller's loop then reads. The
// values for the column's order come out here too (running sums from s->value and
// s->delta, updated), a step beside each token, instead of in a pass of their own.
//
// Each window gives two tokens where it can: the second one's entry is looked up in the
// window shifted past the first, as the four-stream loop does, so that the chain from
// one position to the next (a load, a table entry, the token's bits) is waited on once
// for two tokens. The second is taken only when both fit the window (57 bits or fewer),
// it is not slow, and it starts before the stream's end; otherwise the loop reads it
// next time round as the first.
static inline __attribute__((always_inline)) size_t decode_runs(routelog_run_stream *restrict s,
                                                                int64_t *restrict out, size_t k, int order) {
    const uint8_t *bytes = s->bytes;
    const uint64_t *entries = s->entries;
    const uint64_t mask = s->mask, bias = (uint64_t)s->bias, divisor = (uint64_t)s->divisor;
    const int64_t limit = s->limit;
    int64_t p = s->position;
    uint64_t value = (uint64_t)s->value, delta = (uint64_t)s->delta;
    size_t i = 0;
    while (i < k && p < limit) {
        uint64_t window = window_at(bytes, p);
        uint64_t entry = entries[window & mask];
        if (entry & ENTRY_SLOW) break;
        uint64_t bits = entry_bits(entry);
        uint64_t second_window = window >> (bits & 63);
        uint64_t second = entries[second_window & mask];
        uint64_t v = entry_value(entry, window);
        if (entry & ENTRY_RUN) {
            if (v > k - i) break;
            fill_run(out + i, v, k - i, bias, &value, &delta, order);
            i += v;
        } else {
            out[i++] = next_value(bias, divisor, &value, &delta, v, order);
        }
        p += (int64_t)bits;
        if (bits + entry_bits(second) > 57 || p >= limit || i >= k) continue;  // too long, or slow
        v = entry_value(second, second_window);
        if (second & ENTRY_RUN) {
            if (v > k - i) break;
            fill_run(out + i, v, k - i, bias, &value, &delta, order);
            i += v;
        } else {
            out[i++] = next_value(bias, divisor, &value, &delta, v, order);
        }
        p += (int64_t)entry_bits(second);
    }
    s->position = p;
    s->value = (int64_t)value;
    s->delta = (int64_t)delta;
    return i;
}

// The run loop made for the column's order, as decode_for_order.
static inline __attribute__((always_inline)) size_t decode_runs_for_order(routelog_run_stream *s, int64_t *out,
                                                                          size_t k) {
    switch (s->order) {
    case 0: return decode_runs(s, out, k, 0);
    case 1: return decode_runs(s, out, k, 1);
    default: return decode_runs(s, out, k, 2);
    }
}

// The loop made for the column's order: one copy per order, with no branch on it inside.
static inline __attribute__((always_inline)) size_t decode_for_order(routelog_four_streams *s, int64_t *out,
                                                                     size_t k, pair_values values) {
    switch (s->order) {
    case 0: return decode_four(s, out, k, 0, values);
    case 1: return decode_four(s, out, k, 1, values);
    default: return decode_four(s, out, k, 2, values);
    }
}

size_t routelog_decode_four_streams_portable(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k, values_portable);
}

size_t routelog_decode_run_stream_portable(routelog_run_stream *s, int64_t *out, size_t k) {
    return decode_runs_for_order(s, out, k);
}

// A column's values from its start values and residuals, in place, as
// ColumnDecoderV2.integrate gives them: each value the one before plus its residual from
// v[1] on (order 1), or each first difference the one before plus the residual from
// v[2] on, the first being v[1] - v[0] (order 2); wrapping. The pass after a column
// of one or two streams, whose loop leaves the residuals as they are (the four-stream
// and run loops make the values themselves).
static void running_sums_scalar(int64_t *v, size_t m, int order) {
    if (order == 1 && m > 1) {
        for (size_t j = 1; j < m; j++) v[j] = (int64_t)((uint64_t)v[j - 1] + (uint64_t)v[j]);
    } else if (order == 2 && m > 2) {
        uint64_t delta = (uint64_t)v[1] - (uint64_t)v[0];
        for (size_t j = 2; j < m; j++) {
            delta += (uint64_t)v[j];
            v[j] = (int64_t)((uint64_t)v[j - 1] + delta);
        }
    }
}

void routelog_running_sums_portable(int64_t *values, size_t count, int order) {
    running_sums_scalar(values, count, order);
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

// values_portable four pairs at a time: extract_scalar's u by per-lane shifts (VPSRLVQ,
// VPSLLVQ; a shift of 64 or more gives 0, and so keeps ENTRY_WHOLE_WINDOW's whole
// window), then the same wrapping integers as integrate_scalar. A 64-bit product is
// three 32-bit ones (the low 64 bits of z × divisor); a divisor of 1, the common case,
// skips them. Each group's running sums start from the last lane of the group before,
// which stays in a register.
__attribute__((target("avx2"), always_inline))
static inline void values_avx2(int64_t *out, const uint64_t *pair_entries, size_t count, uint64_t bias,
                               uint64_t divisor, uint64_t *value, uint64_t *delta, const int order) {
    const __m256i total_mask = _mm256_set1_epi64x((long long)ENTRY_TOTAL_MASK),
                  code_mask = _mm256_set1_epi64x((long long)ENTRY_CODE_MASK), ones = _mm256_set1_epi64x(-1);
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256(), vbias = _mm256_set1_epi64x((long long)bias);
    const __m256i divisor_low = _mm256_set1_epi64x((long long)divisor),
                  divisor_high = _mm256_set1_epi64x((long long)(divisor >> 32));
    __m256i last_value = _mm256_set1_epi64x((long long)*value), last_delta = _mm256_set1_epi64x((long long)*delta);
    size_t j = 0;
    for (; j + 4 <= count; j += 4) {
        __m256i window = _mm256_loadu_si256((const __m256i *)(out + j));
        __m256i entry = _mm256_loadu_si256((const __m256i *)(pair_entries + j));
        __m256i length = _mm256_and_si256(_mm256_srli_epi64(entry, ENTRY_CODE_SHIFT), code_mask);
        __m256i extra = _mm256_sub_epi64(_mm256_and_si256(entry, total_mask), length);
        __m256i keep = _mm256_andnot_si256(_mm256_sllv_epi64(ones, extra), ones);
        __m256i u = _mm256_add_epi64(_mm256_srli_epi64(entry, ENTRY_BASE_SHIFT),
                                     _mm256_and_si256(_mm256_srlv_epi64(window, length), keep));
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
    values_portable(out + j, pair_entries + j, count - j, bias, divisor, value, delta, order);
}

// running_sums_scalar four values at a time: each group's own running sums, then what
// came before added to every lane (the only chain from one group to the next, one
// addition), as the four-stream loop's second pass sums them.
__attribute__((target("avx2")))
static void running_sums_avx2(int64_t *v, size_t m, int order) {
    if (order != 1 && order != 2) return;
    size_t j = (size_t)order;
    if (m <= j) return;
    __m256i last_value = _mm256_set1_epi64x(v[j - 1]);
    __m256i last_delta = _mm256_set1_epi64x(order == 2 ? (long long)((uint64_t)v[1] - (uint64_t)v[0]) : 0);
    for (; j + 4 <= m; j += 4) {
        __m256i r = _mm256_loadu_si256((const __m256i *)(v + j));
        if (order == 2) {
            __m256i sums = running_sums(r);
            r = _mm256_add_epi64(sums, last_delta);
            last_delta = _mm256_add_epi64(last_delta, _mm256_permute4x64_epi64(sums, _MM_SHUFFLE(3, 3, 3, 3)));
        }
        __m256i sums = running_sums(r);
        r = _mm256_add_epi64(sums, last_value);
        last_value = _mm256_add_epi64(last_value, _mm256_permute4x64_epi64(sums, _MM_SHUFFLE(3, 3, 3, 3)));
        _mm256_storeu_si256((__m256i *)(v + j), r);
    }
    // The rest one at a time, from the last value and difference of the groups.
    uint64_t value = (uint64_t)_mm256_extract_epi64(last_value, 0), delta = (uint64_t)_mm256_extract_epi64(last_delta, 0);
    for (; j < m; j++) {
        if (order == 2) delta += (uint64_t)v[j], value += delta;
        else value += (uint64_t)v[j];
        v[j] = (int64_t)value;
    }
}

// The values made with AVX2 inside the token loop (so compiled for both), or one at a time.
__attribute__((target("avx2,bmi,bmi2")))
static size_t decode_avx2(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k, values_avx2);
}

__attribute__((target("bmi,bmi2")))
static size_t decode_bmi2(routelog_four_streams *s, int64_t *out, size_t k) {
    return routelog_has_avx2() ? decode_avx2(s, out, k) : decode_for_order(s, out, k, values_portable);
}

__attribute__((target("bmi,bmi2")))
static size_t decode_runs_bmi2(routelog_run_stream *s, int64_t *out, size_t k) { return decode_runs_for_order(s, out, k); }

size_t routelog_decode_four_streams(routelog_four_streams *s, int64_t *out, size_t k) {
    return routelog_has_bmi2() ? decode_bmi2(s, out, k) : decode_for_order(s, out, k, values_portable);
}

size_t routelog_decode_run_stream(routelog_run_stream *s, int64_t *out, size_t k) {
    return routelog_has_bmi2() ? decode_runs_bmi2(s, out, k) : decode_runs_for_order(s, out, k);
}

void routelog_running_sums(int64_t *values, size_t count, int order) {
    if (routelog_has_avx2()) running_sums_avx2(values, count, order);
    else running_sums_scalar(values, count, order);
}
#else
void routelog_running_sums(int64_t *values, size_t count, int order) { running_sums_scalar(values, count, order); }

size_t routelog_decode_four_streams(routelog_four_streams *s, int64_t *out, size_t k) {
    return decode_for_order(s, out, k, values_portable);
}

size_t routelog_decode_run_stream(routelog_run_stream *s, int64_t *out, size_t k) { return decode_runs_for_order(s, out, k); }
#endif
