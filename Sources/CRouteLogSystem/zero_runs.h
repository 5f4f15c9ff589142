// Runs of zero tokens in a version 2 column (format-spec.md, "PointBlock", "Version 2"),
// found 64 tokens at a time: a mask of the zero tokens, whose rising and falling edges
// are where runs start and end. A save counts the runs with this scan to choose its
// code, and writes them from the same masks (write_run_stream in residual_writer.c,
// which takes the values and the run ends together). Shaped for speed: a column such as a
// speed or a course has a short run every few values, and scanning for each end byte by
// byte (or word by word) cost a branch the processor could not predict per run.
// Shared by the C files that need it; not part of the module's API.
#ifndef ROUTELOG_ZERO_RUNS_H
#define ROUTELOG_ZERO_RUNS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

// Bit i set when tokens[i] is 0, for i < count (count <= 64); bits from count up are 0.
static inline __attribute__((always_inline)) uint64_t routelog_zero_token_mask(const uint8_t *tokens, size_t count) {
#if defined(__x86_64__)
    if (count == 64) {  // SSE2, in every x86-64 processor: 16 bytes a comparison
        const __m128i zero = _mm_setzero_si128();
        uint64_t mask = 0;
        for (int q = 0; q < 4; q++) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(tokens + 16 * q));
            mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, zero)) << (16 * q);
        }
        return mask;
    }
#endif
    uint64_t mask = 0;
    for (size_t i = 0; i < count; i++) mask |= (uint64_t)(tokens[i] == 0) << i;
    return mask;
}

typedef struct {
    const uint8_t *tokens;
    size_t count;
    size_t base;           // the first token of the word loaded (count when none is left)
    size_t next_base;      // the word after it
    uint64_t starts, ends; // edges not yet taken in the word loaded
    uint64_t carry;        // 1 when the word before ended with a zero token
    int in_run;
    size_t run_start;
} routelog_zero_run_scan;

static inline routelog_zero_run_scan routelog_zero_runs(const uint8_t *tokens, size_t count) {
    routelog_zero_run_scan s = {tokens, count, 0, 0, 0, 0, 0, 0, 0};
    return s;
}

// The next run, in order: its first token and its length; 0 when there is none left.
static inline __attribute__((always_inline)) int routelog_next_zero_run(routelog_zero_run_scan *s, size_t *start,
                                                                       size_t *length) {
    for (;;) {
        if (s->in_run) {
            if (s->ends) {
                size_t end = s->base + (size_t)__builtin_ctzll(s->ends);
                s->ends &= s->ends - 1;
                s->in_run = 0;
                *start = s->run_start;
                *length = end - s->run_start;
                return 1;
            }
        } else if (s->starts) {
            s->run_start = s->base + (size_t)__builtin_ctzll(s->starts);
            s->starts &= s->starts - 1;
            s->in_run = 1;
            continue;
        }
        if (s->next_base >= s->count) {
            if (!s->in_run) return 0;
            // A run up to the last token, which ends at a word's end.
            s->in_run = 0;
            *start = s->run_start;
            *length = s->count - s->run_start;
            return 1;
        }
        s->base = s->next_base;
        size_t n = s->count - s->base < 64 ? s->count - s->base : 64;
        s->next_base = s->base + n;
        uint64_t zeros = routelog_zero_token_mask(s->tokens + s->base, n);
        // Bit i of `before`: token i - 1 is 0 (bit 0 from the word before).
        uint64_t before = zeros << 1 | s->carry;
        s->starts = zeros & ~before;
        // A run ends where a nonzero token follows a zero one; in a last, shorter word
        // the token past the end counts as nonzero, so a run up to it ends there.
        s->ends = ~zeros & before & (n == 64 ? ~0ULL : (2ULL << n) - 1);
        s->carry = n == 64 ? zeros >> 63 : 0;
    }
}

// The longest run one run token sends (format-spec.md: run tokens 0..<20, runs of 2^j
// to 2^(j+1) - 1); a longer run, which a route's point limit rules out, goes as several.
#define ROUTELOG_LONGEST_RUN ((1u << 20) - 1)

// The run token of a run of `length` zeros (1...ROUTELOG_LONGEST_RUN): its top bit's place.
static inline __attribute__((always_inline)) unsigned routelog_run_token(size_t length) {
    return 63u - (unsigned)__builtin_clzll((uint64_t)length);
}

#endif
