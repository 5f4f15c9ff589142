// The write loop of a version 2 column's residuals (format-spec.md, "PointBlock",
// "Version 2", "Streams"): every value of a save's columns goes out through here, as its
// token's code and then its extra bits. The streams are written one after another, and
// each in groups: as many values as surely fit the 64-bit buffer are added to it, and
// only then is it stored, so that the store and the move to the next byte come once a
// group, not once a value. One stream's writer (three values) and the loop's pointers
// all stay in registers, where four scalar writers side by side went through memory;
// with AVX2, four streams are written side by side in the lanes of vectors instead
// (write_four_streams_avx2).
#include "CRouteLogSystem.h"
#include "processor_features.h"
#include "zero_runs.h"

#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the streams are stored as little-endian 8-byte words"
#endif

// The layout of a send table entry (Codec/V2/CodePlan.swift).
#define SEND_CODE_MASK 0xFFFFFFFFull
#define SEND_LENGTH_SHIFT 32
#define SEND_EXTRA_SHIFT 40
#define SEND_TOTAL_SHIFT 48

// The most bits one put takes: with up to 7 pending, 63 fit the 64-bit buffer.
#define MAX_PUT 56

// One stream being written: bits go in from bit 0 of each byte upwards. After every put
// (or group of adds) the whole buffer is stored and the position moves on by the whole
// bytes in it, so there is no branch on how full the buffer is; a store may reach 7
// bytes past the stream's last byte (the caller leaves 8 to spare).
typedef struct {
    uint64_t buffer, pending;
    uint8_t *next;
} stream_writer;

// Bits into the buffer, not yet stored: the caller makes sure that pending stays at
// most 63.
static inline __attribute__((always_inline)) void add(stream_writer *w, uint64_t bits, uint64_t count) {
    w->buffer |= bits << w->pending;
    w->pending += count;
}

// The buffer stored, and the whole bytes in it left behind.
static inline __attribute__((always_inline)) void store(stream_writer *w) {
    memcpy(w->next, &w->buffer, 8);
    w->next += w->pending >> 3;
    w->buffer >>= w->pending & 56;  // the whole bytes' bits: at most 56, as pending is at most 63
    w->pending &= 7;
}

static inline __attribute__((always_inline)) void put(stream_writer *w, uint64_t bits, uint64_t count) {
    add(w, bits, count);
    store(w);
}

// A value of more than MAX_PUT bits (possible only for absurd residuals): the code,
// then the extra bits 32 at a time. The writer goes in and comes back by value: passed
// by its address, it could not stay in registers in the loops that call this.
static stream_writer put_long(stream_writer w, uint64_t send, uint64_t extra_bits) {
    put(&w, send & SEND_CODE_MASK, (send >> SEND_LENGTH_SHIFT) & 0xFF);
    uint64_t count = (send >> SEND_EXTRA_SHIFT) & 0xFF;
    while (count > 32) {
        put(&w, extra_bits & 0xFFFFFFFFull, 32);
        extra_bits >>= 32;
        count -= 32;
    }
    put(&w, extra_bits, count);
    return w;
}

// Residual j's code and extra bits, ready for one put; *total says how many.
static inline __attribute__((always_inline)) uint64_t value_bits(const uint64_t *send, const uint64_t *masks,
                                                                  uint64_t u, unsigned token, uint64_t *total) {
    uint64_t s = send[token];
    *total = s >> SEND_TOTAL_SHIFT;
    return (s & SEND_CODE_MASK) | (u & masks[token]) << ((s >> SEND_LENGTH_SHIFT) & 0xFF);
}

// Residual j into its stream, whatever its size.
static inline __attribute__((always_inline)) void put_value(stream_writer *w, const uint64_t *send,
                                                            const uint64_t *masks, uint64_t u, unsigned token) {
    uint64_t total;
    uint64_t bits = value_bits(send, masks, u, token, &total);
    if (__builtin_expect(total <= MAX_PUT, 1)) put(w, bits, total);
    else *w = put_long(*w, send[token], u & masks[token]);
}

static inline __attribute__((always_inline)) size_t finish(stream_writer *w, const uint8_t *start) {
    if (w->pending > 0) *w->next++ = (uint8_t)w->buffer;
    return (size_t)(w->next - start);
}

// value_bits for a value of at most 32 bits (a code and extra bits together): the send
// table entry's fields start at bit 32, so the code needs no mask of its own, and the
// low `total` bits of entry | u << code length are the code and the extra bits. With
// `bzhi` (BMI2) taking those bits is one instruction and needs no load of masks[token];
// the portable path masks as value_bits does. The bits are the same either way.
static inline __attribute__((always_inline)) uint64_t short_value_bits(const uint64_t *send, const uint64_t *masks,
                                                                        uint64_t u, unsigned token, uint64_t *total,
                                                                        const int bzhi) {
    if (!bzhi) return value_bits(send, masks, u, token, total);
    uint64_t s = send[token];
    *total = s >> SEND_TOTAL_SHIFT;
    return (s | u << ((s >> SEND_LENGTH_SHIFT) & 63)) & ((1ull << *total) - 1);  // BZHI
}

// Stream `first` of `stride`: residuals first, first + stride, first + 2 × stride, ...
// `group` values are added for each store (group × the longest value at most MAX_PUT);
// the rest of the stream one value a put. `stride` and `group` are constants in each
// copy write_streams makes, so that the group is unrolled and each of its values read
// at a fixed offset.
//
// write_stream_on goes on with writer w from residual `first`, the stream's bytes
// starting at `start` (after the four lanes of write_four_streams_avx2 have written the
// stream's beginning).
static inline __attribute__((always_inline)) size_t write_stream_on(stream_writer w, const uint8_t *start,
                                                                    const uint64_t *u, const uint8_t *tokens,
                                                                    size_t k, size_t first, const size_t stride,
                                                                    const size_t group, const uint64_t *send,
                                                                    const uint64_t *masks, const int bzhi) {
    size_t j = first;
    if (group > 1) {
        for (; j + (group - 1) * stride < k; j += group * stride) {
            for (size_t g = 0; g < group; g++) {
                uint64_t total;
                uint64_t bits = short_value_bits(send, masks, u[j + g * stride], tokens[j + g * stride], &total, bzhi);
                add(&w, bits, total);
            }
            store(&w);
        }
    }
    for (; j < k; j += stride) put_value(&w, send, masks, u[j], tokens[j]);
    return finish(&w, start);
}

// The most bits a value token of `send` takes (each entry's total is its byte 6, and
// its byte 7 is 0; an unused token's entry is 0): at most the longest the caller counted
// when the table is as the caller made it, and the truth when it is not. The bytes'
// maxima sixteen at a time (PMAXUB, UMAX): a scalar pass over the 256 entries added
// 0.7% to a save's instructions, this about 0.1%.
typedef uint8_t routelog_send_bytes __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) unsigned table_longest(const uint64_t *send) {
    routelog_send_bytes most = {0};
    const uint8_t *bytes = (const uint8_t *)send;
    for (size_t i = 0; i < 256 * sizeof(uint64_t); i += sizeof most) {
        routelog_send_bytes v;
        memcpy(&v, bytes + i, sizeof v);
        most = __builtin_elementwise_max(most, v);
    }
    if (most[7] | most[15]) return 255;  // a total of 256 or more: one value a put
    return most[6] > most[14] ? most[6] : most[14];
}

// How many values one put takes in a column's groups (8, 4, 2 or 1), sized by the
// table's own longest value when it is longer than the caller's count: a count too
// short would put more bits in a group than the buffer holds, and move the stream's end
// past its room. (256 loads a column, against the thousands of values it writes.)
// *longest_out is the longer of the two.
static inline __attribute__((always_inline)) size_t group_of(const uint64_t *send, unsigned longest,
                                                             unsigned *longest_out) {
    unsigned told = table_longest(send);
    if (told > longest) longest = told;
    *longest_out = longest;
    // The most values that surely fit one put: with up to 7 bits pending, MAX_PUT more.
    return 8 * (size_t)longest <= MAX_PUT ? 8 : 4 * (size_t)longest <= MAX_PUT ? 4
         : 2 * (size_t)longest <= MAX_PUT ? 2 : 1;
}

// The streams from residual `done` (a multiple of count) on, stream s with writer
// writers[s] (its bytes from out[s]), or all from the start when `writers` is null.
static inline __attribute__((always_inline)) void write_streams_on(const uint64_t *u, const uint8_t *tokens,
                                                                   size_t k, size_t count, const uint64_t *send,
                                                                   const uint64_t *masks, size_t group,
                                                                   const stream_writer *writers, size_t done,
                                                                   uint8_t *const *out, size_t *lengths,
                                                                   const int bzhi) {
    if (count < 1 || count > 4) __builtin_trap();  // the format has 1, 2 or 4 streams
    for (size_t s = 0; s < count; s++) {
        stream_writer w = writers ? writers[s] : (stream_writer){0, 0, out[s]};
#define ROUTELOG_STREAM(stride, size) \
    write_stream_on(w, out[s], u, tokens, k, done + s, stride, size, send, masks, bzhi)
#define ROUTELOG_STREAM_OF(stride)                                                                                 \
    (group == 8 ? ROUTELOG_STREAM(stride, 8) : group == 4 ? ROUTELOG_STREAM(stride, 4)                             \
     : group == 2 ? ROUTELOG_STREAM(stride, 2) : ROUTELOG_STREAM(stride, 1))
        // (Three streams, which the format does not have, one value a put.)
        lengths[s] = count == 4   ? ROUTELOG_STREAM_OF(4)
                     : count == 2 ? ROUTELOG_STREAM_OF(2)
                     : count == 1 ? ROUTELOG_STREAM_OF(1)
                                  : ROUTELOG_STREAM(count, 1);
#undef ROUTELOG_STREAM_OF
#undef ROUTELOG_STREAM
    }
}

static inline __attribute__((always_inline)) void write_streams(const uint64_t *u, const uint8_t *tokens, size_t k,
                                                                size_t count, const uint64_t *send,
                                                                const uint64_t *masks, unsigned longest,
                                                                uint8_t *const *out, size_t *lengths, const int bzhi) {
    size_t group = group_of(send, longest, &longest);
    write_streams_on(u, tokens, k, count, send, masks, group, 0, 0, out, lengths, bzhi);
}

// A run of 1...ROUTELOG_LONGEST_RUN zeros as its run token (value tokens 0..<256 come
// first in `send`) and its j extra bits.
static inline __attribute__((always_inline)) void put_run_token(stream_writer *w, const uint64_t *send, size_t run) {
    unsigned j = routelog_run_token(run);
    uint64_t s = send[256 + j], code_length = (s >> SEND_LENGTH_SHIFT) & 0xFF;
    // Code and extra bits in one put: at most 11 + 19 bits.
    put(w, (s & SEND_CODE_MASK) | ((uint64_t)run & ((1ULL << j) - 1)) << code_length, code_length + j);
}

// A run of `length` zeros (1 or more); one longer than a run token sends, as several.
static inline __attribute__((always_inline)) void put_run(stream_writer *w, const uint64_t *send, size_t length) {
    for (; __builtin_expect(length > ROUTELOG_LONGEST_RUN, 0); length -= ROUTELOG_LONGEST_RUN)
        put_run_token(w, send, ROUTELOG_LONGEST_RUN);
    put_run_token(w, send, length);
}

// The one stream of a column with zero runs: the values one by one, and each run of
// zeros as its run token just before the value that ends it (or at the column's end).
// 64 tokens at a time, from the mask of their zeros (routelog_zero_token_mask): the
// values are its clear bits, taken in order; a value with a zero before it ends a run,
// which started at the last run start below it, or in an earlier word.
//
// Shaped for speed: routelog_next_zero_run's scan (one run at a time, and the values
// between runs in a loop of their own) kept more state than there are registers, and
// the writer went through memory on every value. Callgrind, a buffered save of a
// 3,600-point walk (one column with runs, about 900 values and 450 runs): 68,000
// instructions that way, 56,500 this way.
static inline __attribute__((always_inline)) size_t write_run_stream(const uint64_t *u, const uint8_t *tokens, size_t k,
                                                                    const uint64_t *send, const uint64_t *masks,
                                                                    uint8_t *out) {
    stream_writer w = {0, 0, out};
    size_t run_start = 0;  // the start of the last run begun, in this word or an earlier one
    uint64_t carry = 0;    // 1 when the word before ended with a zero token
    for (size_t base = 0; base < k; base += 64) {
        size_t n = k - base < 64 ? k - base : 64;
        uint64_t zeros = routelog_zero_token_mask(tokens + base, n);
        uint64_t before = zeros << 1 | carry;  // bit p: token p - 1 is 0 (bit 0 from the word before)
        uint64_t starts = zeros & ~before;
        uint64_t values = ~zeros & (n == 64 ? ~0ULL : (1ULL << n) - 1);
        while (values) {
            unsigned p = (unsigned)__builtin_ctzll(values);
            values &= values - 1;
            if (before >> p & 1) {
                uint64_t earlier = starts & ((1ULL << p) - 1);
                if (earlier) run_start = base + 63 - (size_t)__builtin_clzll(earlier);
                put_run(&w, send, base + p - run_start);
            }
            put_value(&w, send, masks, u[base + p], tokens[base + p]);
        }
        if (starts) run_start = base + 63 - (size_t)__builtin_clzll(starts);
        carry = zeros >> (n - 1) & 1;
    }
    if (carry) put_run(&w, send, k - run_start);  // a run up to the column's end
    return finish(&w, out);
}

size_t routelog_write_run_stream_portable(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                          const uint64_t *masks, uint8_t *out) {
    return write_run_stream(u, tokens, k, send, masks, out);
}

void routelog_write_residual_streams_portable(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                              const uint64_t *send, const uint64_t *masks, unsigned longest,
                                              uint8_t *const *out, size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths, 0);
}

#if defined(__x86_64__)
// With BMI2 the variable shifts are single instructions (SHLX, SHRX), and so is taking
// a value's low bits (BZHI).
__attribute__((target("bmi,bmi2")))
static void write_streams_bmi2(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                               const uint64_t *send, const uint64_t *masks, unsigned longest, uint8_t *const *out,
                               size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths, 1);
}

#include <immintrin.h>

// The four streams of a column side by side, stream s in 64-bit lane s of each vector
// (residual i in stream i mod 4, so residuals 4m..<4m + 4 are one step: one load of
// their u, one of their tokens, one gather of their table entries), in groups of
// `group` steps a store, as write_stream_on's groups; the four stores go lane by lane.
// Returns the residuals written (whole groups of steps); writers[s] is then stream s's
// writer, for write_stream_on to go on with. Every value must fit one put (the table's
// longest value at most MAX_PUT).
//
// Shaped for speed: a value is code | (u << code length) with the bits past its total
// cleared (AVX2 has no BZHI: a mask of ones shifted by the total), shifted by the
// lane's pending bits into its buffer: about 14 instructions a step of four values,
// where one stream at a time took 11 a value and a store a group. Callgrind, a buffered
// save of a 3,600-point walk (its columns with many values have four streams): the
// streams' write 318,000 instructions one stream after another (write_streams_bmi2),
// 108,000 this way.
__attribute__((target("avx2,bmi,bmi2"), always_inline))
static inline size_t write_four_lanes(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                      const size_t group, uint8_t *const *out, stream_writer *writers) {
    // Each lane's code length (byte 4 of its entry) alone in the lane, a shift count.
    const __m256i length_byte = _mm256_setr_epi8(4, -1, -1, -1, -1, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1,  //
                                                 4, -1, -1, -1, -1, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1);
    const __m256i ones = _mm256_set1_epi64x(-1), seven = _mm256_set1_epi64x(7), whole_bytes = _mm256_set1_epi64x(56);
    __m256i buffer = _mm256_setzero_si256(), pending = _mm256_setzero_si256();
    __m256i next = _mm256_loadu_si256((const __m256i *)out);
    size_t steps = k / 4, done = 4 * (steps - steps % group);
    for (size_t j = 0; j < done; j += 4 * group) {
        for (size_t g = 0; g < group; g++) {
            uint32_t four;
            memcpy(&four, tokens + j + 4 * g, 4);
            __m256i token = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)four));
            __m256i entry = _mm256_i64gather_epi64((const long long *)send, token, 8);
            __m256i value = _mm256_loadu_si256((const __m256i *)(u + j + 4 * g));
            __m256i total = _mm256_srli_epi64(entry, SEND_TOTAL_SHIFT);
            // The entry's fields from bit 32 up are cleared with the bits past the total
            // when it is at most 32 (as in short_value_bits), surely so in groups of two
            // or more (at most 28 bits a value); else the code is taken alone.
            __m256i code = group > 1 ? entry : _mm256_blend_epi32(entry, _mm256_setzero_si256(), 0xAA);
            __m256i bits = _mm256_or_si256(code, _mm256_sllv_epi64(value, _mm256_shuffle_epi8(entry, length_byte)));
            bits = _mm256_andnot_si256(_mm256_sllv_epi64(ones, total), bits);
            buffer = _mm256_or_si256(buffer, _mm256_sllv_epi64(bits, pending));
            pending = _mm256_add_epi64(pending, total);
        }
        // store() in each lane, each word stored from its vector (VMOVQ, VPEXTRQ to
        // memory): MOVHPD for the upper words became a shuffle and a store, two more
        // instructions a group (callgrind: 107,700 -> 104,800 instructions a save).
        __m128i low = _mm256_castsi256_si128(buffer), high = _mm256_extracti128_si256(buffer, 1);
        __m128i next_low = _mm256_castsi256_si128(next), next_high = _mm256_extracti128_si256(next, 1);
        uint64_t words[4] = {(uint64_t)_mm_cvtsi128_si64(low), (uint64_t)_mm_extract_epi64(low, 1),
                             (uint64_t)_mm_cvtsi128_si64(high), (uint64_t)_mm_extract_epi64(high, 1)};
        memcpy((uint8_t *)(uintptr_t)_mm_cvtsi128_si64(next_low), &words[0], 8);
        memcpy((uint8_t *)(uintptr_t)_mm_extract_epi64(next_low, 1), &words[1], 8);
        memcpy((uint8_t *)(uintptr_t)_mm_cvtsi128_si64(next_high), &words[2], 8);
        memcpy((uint8_t *)(uintptr_t)_mm_extract_epi64(next_high, 1), &words[3], 8);
        next = _mm256_add_epi64(next, _mm256_srli_epi64(pending, 3));
        buffer = _mm256_srlv_epi64(buffer, _mm256_and_si256(pending, whole_bytes));
        pending = _mm256_and_si256(pending, seven);
    }
    uint64_t buffers[4], pendings[4], nexts[4];
    _mm256_storeu_si256((__m256i *)buffers, buffer);
    _mm256_storeu_si256((__m256i *)pendings, pending);
    _mm256_storeu_si256((__m256i *)nexts, next);
    for (int s = 0; s < 4; s++) writers[s] = (stream_writer){buffers[s], pendings[s], (uint8_t *)(uintptr_t)nexts[s]};
    return done;
}

// Four streams with AVX2: as many whole groups as there are in four lanes, the rest of
// each stream as write_streams_bmi2 writes it.
__attribute__((target("avx2,bmi,bmi2")))
static void write_four_streams_avx2(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                    const uint64_t *masks, size_t group, uint8_t *const *out, size_t *lengths) {
    stream_writer writers[4];
    size_t done = group == 8   ? write_four_lanes(u, tokens, k, send, 8, out, writers)
                  : group == 4 ? write_four_lanes(u, tokens, k, send, 4, out, writers)
                  : group == 2 ? write_four_lanes(u, tokens, k, send, 2, out, writers)
                               : write_four_lanes(u, tokens, k, send, 1, out, writers);
    write_streams_on(u, tokens, k, 4, send, masks, group, writers, done, out, lengths, 1);
}

// Four streams whose values each fit one put go through write_four_streams_avx2 when
// the processor has AVX2; the rest, and any column without AVX2, through
// write_streams_bmi2.
static void write_streams_best(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count, const uint64_t *send,
                               const uint64_t *masks, unsigned longest, uint8_t *const *out, size_t *lengths) {
    if (count == 4 && routelog_has_avx2() && routelog_has_bmi2()) {
        size_t group = group_of(send, longest, &longest);
        if (longest <= MAX_PUT) {
            write_four_streams_avx2(u, tokens, k, send, masks, group, out, lengths);
            return;
        }
    }
    if (routelog_has_bmi2()) write_streams_bmi2(u, tokens, k, count, send, masks, longest, out, lengths);
    else write_streams(u, tokens, k, count, send, masks, longest, out, lengths, 0);
}

__attribute__((target("bmi,bmi2")))
static size_t write_run_stream_bmi2(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                    const uint64_t *masks, uint8_t *out) {
    return write_run_stream(u, tokens, k, send, masks, out);
}

size_t routelog_write_run_stream(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                 const uint64_t *masks, uint8_t *out) {
    return routelog_has_bmi2() ? write_run_stream_bmi2(u, tokens, k, send, masks, out)
                               : write_run_stream(u, tokens, k, send, masks, out);
}

void routelog_write_residual_streams(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                     const uint64_t *send, const uint64_t *masks, unsigned longest,
                                     uint8_t *const *out, size_t *lengths) {
    write_streams_best(u, tokens, k, count, send, masks, longest, out, lengths);
}

void routelog_write_residual_streams_scalar(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                            const uint64_t *send, const uint64_t *masks, unsigned longest,
                                            uint8_t *const *out, size_t *lengths) {
    if (routelog_has_bmi2()) write_streams_bmi2(u, tokens, k, count, send, masks, longest, out, lengths);
    else write_streams(u, tokens, k, count, send, masks, longest, out, lengths, 0);
}
#else
size_t routelog_write_run_stream(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                 const uint64_t *masks, uint8_t *out) {
    return write_run_stream(u, tokens, k, send, masks, out);
}

void routelog_write_residual_streams(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                     const uint64_t *send, const uint64_t *masks, unsigned longest,
                                     uint8_t *const *out, size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths, 0);
}

void routelog_write_residual_streams_scalar(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                            const uint64_t *send, const uint64_t *masks, unsigned longest,
                                            uint8_t *const *out, size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths, 0);
}
#endif
