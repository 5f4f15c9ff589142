// A version 2 column's tokens (format-spec.md, "PointBlock", "Tokens"): value tokens
// 0...255 (16 direct ones, then 4 per exponent) and run tokens 256 + j. Shared by the C
// files that make, code or read them; not part of the module's API.
#ifndef ROUTELOG_TOKENS_H
#define ROUTELOG_TOKENS_H

#include <stdint.h>

#define ROUTELOG_VALUE_TOKENS 256
#define ROUTELOG_DIRECT_TOKENS 16
#define ROUTELOG_RUN_TOKENS 20

// The extra bits of value token t (t < 256): none for a direct one, else 2 and one more
// every 4 tokens.
static inline __attribute__((always_inline)) unsigned routelog_value_token_extra_bits(unsigned t) {
    return t < ROUTELOG_DIRECT_TOKENS ? 0 : ((t - ROUTELOG_DIRECT_TOKENS) >> 2) + 2;
}

// The smallest value of value token t (its extra bits are added to it).
static inline __attribute__((always_inline)) uint64_t routelog_value_token_base(unsigned t) {
    return t < ROUTELOG_DIRECT_TOKENS ? t : (uint64_t)(4 | (t & 3)) << routelog_value_token_extra_bits(t);
}

// The extra bits of symbol s of a code: a value token's, or j for run token 256 + j.
static inline __attribute__((always_inline)) unsigned routelog_symbol_extra_bits(unsigned s) {
    return s >= ROUTELOG_VALUE_TOKENS ? s - ROUTELOG_VALUE_TOKENS : routelog_value_token_extra_bits(s);
}

#endif
