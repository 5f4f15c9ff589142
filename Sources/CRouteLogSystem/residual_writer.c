// The write loop of a version 2 column's residuals (format-spec.md, "PointBlock",
// "Version 2", "Streams"): every value of a save's columns goes out through here, as its
// token's code and then its extra bits. With four streams the four writers advance side
// by side, one value each per turn: each writer's buffer is a chain from one put to the
// next, and four independent chains keep the processor busy where one would make it
// wait. The bytes are the same whichever order the writers take turns in.
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
// the whole buffer is stored and the position moves on by the whole bytes in it, so
// there is no branch on how full the buffer is; a store may reach 7 bytes past the
// stream's last byte (the caller leaves 8 to spare).
typedef struct {
    uint64_t buffer, pending;
    uint8_t *next;
} stream_writer;

static inline __attribute__((always_inline)) void put(stream_writer *w, uint64_t bits, uint64_t count) {
    w->buffer |= bits << w->pending;
    w->pending += count;
    memcpy(w->next, &w->buffer, 8);
    uint64_t whole = w->pending >> 3;
    w->next += whole;
    w->buffer >>= whole << 3;  // at most 56: pending is at most 63
    w->pending &= 7;
}

// A value of more than MAX_PUT bits (possible only for absurd residuals): the code,
// then the extra bits 32 at a time.
static void put_long(stream_writer *w, uint64_t send, uint64_t extra_bits) {
    put(w, send & SEND_CODE_MASK, (send >> SEND_LENGTH_SHIFT) & 0xFF);
    uint64_t count = (send >> SEND_EXTRA_SHIFT) & 0xFF;
    while (count > 32) {
        put(w, extra_bits & 0xFFFFFFFFull, 32);
        extra_bits >>= 32;
        count -= 32;
    }
    put(w, extra_bits, count);
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
    else put_long(w, send[token], u & masks[token]);
}

static inline __attribute__((always_inline)) size_t finish(stream_writer *w, const uint8_t *start) {
    if (w->pending > 0) *w->next++ = (uint8_t)w->buffer;
    return (size_t)(w->next - start);
}

static inline __attribute__((always_inline)) void write_streams(const uint64_t *u, const uint8_t *tokens, size_t k,
                                                                size_t count, const uint64_t *send,
                                                                const uint64_t *masks, unsigned longest,
                                                                uint8_t *const *out, size_t *lengths) {
    stream_writer w[4];
    if (count < 1 || count > 4) __builtin_trap();  // the format has 1, 2 or 4 streams
    for (size_t s = 0; s < count; s++) w[s] = (stream_writer){0, 0, out[s]};
    size_t j = 0;
    if (count == 4 && 2 * longest <= MAX_PUT) {
        // Two values a put, the writers in turn: residuals j + s and j + 4 + s go to
        // stream s. The writers are locals of their own, so that all four stay in
        // registers (an array of them went through memory on every put).
        stream_writer w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
#define ROUTELOG_PUT_PAIR(writer, s)                                                          \
    do {                                                                                      \
        uint64_t t0, t1;                                                                      \
        uint64_t b0 = value_bits(send, masks, u[j + (s)], tokens[j + (s)], &t0);             \
        uint64_t b1 = value_bits(send, masks, u[j + 4 + (s)], tokens[j + 4 + (s)], &t1);     \
        put(&(writer), b0 | b1 << t0, t0 + t1);                                               \
    } while (0)
        for (; j + 8 <= k; j += 8) {
            ROUTELOG_PUT_PAIR(w0, 0);
            ROUTELOG_PUT_PAIR(w1, 1);
            ROUTELOG_PUT_PAIR(w2, 2);
            ROUTELOG_PUT_PAIR(w3, 3);
        }
#undef ROUTELOG_PUT_PAIR
        w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3;
    } else if (count == 1 && 2 * longest <= MAX_PUT) {
        for (; j + 2 <= k; j += 2) {
            uint64_t t0, t1;
            uint64_t b0 = value_bits(send, masks, u[j], tokens[j], &t0);
            uint64_t b1 = value_bits(send, masks, u[j + 1], tokens[j + 1], &t1);
            put(&w[0], b0 | b1 << t0, t0 + t1);
        }
    }
    // The rest (or every value when two may not fit one put), in order.
    for (; j < k; j++) put_value(&w[j % count], send, masks, u[j], tokens[j]);
    for (size_t s = 0; s < count; s++) lengths[s] = finish(&w[s], out[s]);
}

// The one stream of a column with zero runs: the values between runs one by one, each
// run as its run token (value tokens 0..<256 come first in `send`) and its j extra bits.
static inline __attribute__((always_inline)) size_t write_run_stream(const uint64_t *u, const uint8_t *tokens, size_t k,
                                                                    const uint64_t *send, const uint64_t *masks,
                                                                    uint8_t *out) {
    stream_writer w = {0, 0, out};
    routelog_zero_run_scan scan = routelog_zero_runs(tokens, k);
    size_t i = 0, start, length;
    while (routelog_next_zero_run(&scan, &start, &length)) {
        for (; i < start; i++) put_value(&w, send, masks, u[i], tokens[i]);
        i = start + length;
        while (length > 0) {
            size_t run = length > ROUTELOG_LONGEST_RUN ? ROUTELOG_LONGEST_RUN : length;
            unsigned j = routelog_run_token(run);
            uint64_t s = send[256 + j], code_length = (s >> SEND_LENGTH_SHIFT) & 0xFF;
            // Code and extra bits in one put: at most 11 + 19 bits.
            put(&w, (s & SEND_CODE_MASK) | ((uint64_t)run & ((1ULL << j) - 1)) << code_length, code_length + j);
            length -= run;
        }
    }
    for (; i < k; i++) put_value(&w, send, masks, u[i], tokens[i]);
    return finish(&w, out);
}

size_t routelog_write_run_stream_portable(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                          const uint64_t *masks, uint8_t *out) {
    return write_run_stream(u, tokens, k, send, masks, out);
}

void routelog_write_residual_streams_portable(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                              const uint64_t *send, const uint64_t *masks, unsigned longest,
                                              uint8_t *const *out, size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths);
}

#if defined(__x86_64__)
// With BMI2 the variable shifts are single instructions (SHLX, SHRX).
__attribute__((target("bmi,bmi2")))
static void write_streams_bmi2(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                               const uint64_t *send, const uint64_t *masks, unsigned longest, uint8_t *const *out,
                               size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths);
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
    if (routelog_has_bmi2()) write_streams_bmi2(u, tokens, k, count, send, masks, longest, out, lengths);
    else write_streams(u, tokens, k, count, send, masks, longest, out, lengths);
}
#else
size_t routelog_write_run_stream(const uint64_t *u, const uint8_t *tokens, size_t k, const uint64_t *send,
                                 const uint64_t *masks, uint8_t *out) {
    return write_run_stream(u, tokens, k, send, masks, out);
}

void routelog_write_residual_streams(const uint64_t *u, const uint8_t *tokens, size_t k, size_t count,
                                     const uint64_t *send, const uint64_t *masks, unsigned longest,
                                     uint8_t *const *out, size_t *lengths) {
    write_streams(u, tokens, k, count, send, masks, longest, out, lengths);
}
#endif
