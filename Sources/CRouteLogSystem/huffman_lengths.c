// Code lengths of a length-limited minimum-redundancy code, as a version 2 column's
// code is built (Codec/V2/HuffmanLengths.swift documents the rule; format-spec.md,
// "PointBlock", "Version 2", "The code"). Every column of every save builds one or two
// codes: built in Swift with the generic sort, and its size then worked out over all 276
// symbols, a code of a walk's column took about 8,700 instructions; here about 4,500
// (callgrind).
#include "CRouteLogSystem.h"
#include "tokens.h"

#include <string.h>

#define MOST_SYMBOLS 276
#define VALUE_TOKENS ROUTELOG_VALUE_TOKENS

// Sorts keys[0..<n] ascending. Insertion sort: the keys come in nearly ascending (the
// caller gathers them from the last token down, and rarer tokens have the larger
// numbers), and after a halving round only ties can have moved. At most 276 keys, so
// the worst case stays below 40,000 moves.
static void sort_keys(uint64_t *keys, size_t n) {
    for (size_t i = 1; i < n; i++) {
        uint64_t key = keys[i];
        size_t j = i;
        while (j > 0 && keys[j - 1] > key) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = key;
    }
}

// Moffat and Katajainen's in-place calculation, on a[0..<n] (n >= 2) ascending weights,
// replaced by their code lengths: pairs into internal nodes with parent indices, parents
// to internal depths, then leaf depths (HuffmanLengthsOracleTests keeps them in Swift).
static void minimum_redundancy(int64_t *a, size_t n) {
    a[0] += a[1];
    size_t root = 0, leaf = 2;
    for (size_t next = 1; next < n - 1; next++) {
        if (leaf >= n || a[root] < a[leaf]) {
            a[next] = a[root];
            a[root] = (int64_t)next;
            root++;
        } else {
            a[next] = a[leaf];
            leaf++;
        }
        if (leaf >= n || (root < next && a[root] < a[leaf])) {
            a[next] += a[root];
            a[root] = (int64_t)next;
            root++;
        } else {
            a[next] += a[leaf];
            leaf++;
        }
    }
    a[n - 2] = 0;
    for (size_t next = n - 2; next-- > 0;) a[next] = a[a[next]] + 1;
    int64_t available = 1, used = 0, depth = 0;
    int64_t root_index = (int64_t)n - 2, next = (int64_t)n - 1;
    while (available > 0) {
        while (root_index >= 0 && a[root_index] == depth) {
            used++;
            root_index--;
        }
        while (available > used) {
            a[next] = depth;
            next--;
            available--;
        }
        available = 2 * used;
        depth++;
        used = 0;
    }
}

// What the code sends: each used token's weight times its code and extra bits, and one
// past the last used value token and run token.
static routelog_code_size size_of(const uint32_t *weights, const uint64_t *keys, size_t n, const uint8_t *lengths) {
    routelog_code_size size = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        size_t t = keys[i] & 0xFFFF;
        size.bits += (uint64_t)weights[t] * (lengths[t] + routelog_symbol_extra_bits((unsigned)t));
        if (t < VALUE_TOKENS) {
            if (t + 1 > size.value_tokens_listed) size.value_tokens_listed = t + 1;
        } else if (t - VALUE_TOKENS + 1 > size.run_tokens_listed) {
            size.run_tokens_listed = t - VALUE_TOKENS + 1;
        }
    }
    return size;
}

routelog_code_size routelog_huffman_lengths(const uint32_t *weights, size_t count, int limit, uint8_t *lengths) {
    uint64_t keys[MOST_SYMBOLS];
    int64_t depths[MOST_SYMBOLS];
    if (count > MOST_SYMBOLS) count = MOST_SYMBOLS;
    size_t n = 0, t = count;
    memset(lengths, 0, count);
    // Weight in the high bits, token in the low 16: ties order by token. Four weights
    // at a time where all four are 0 (most of the 256 value tokens a column never uses;
    // a build of a walk's column took about 600 instructions fewer than one at a time).
    while (t >= 4) {
        t -= 4;
        if ((weights[t] | weights[t + 1] | weights[t + 2] | weights[t + 3]) == 0) continue;
        for (size_t u = t + 4; u-- > t;) {
            if (weights[u] > 0) keys[n++] = (uint64_t)weights[u] << 16 | u;
        }
    }
    while (t-- > 0) {
        if (weights[t] > 0) keys[n++] = (uint64_t)weights[t] << 16 | t;
    }
    if (n < 2) {
        if (n == 1) lengths[keys[0] & 0xFFFF] = 1;
        return size_of(weights, keys, n, lengths);
    }
    for (;;) {
        sort_keys(keys, n);
        for (size_t i = 0; i < n; i++) depths[i] = (int64_t)(keys[i] >> 16);
        minimum_redundancy(depths, n);
        // The lightest token has the longest code. Past the limit, flatter weights
        // (halved, rounding up, so none becomes 0) make a shallower tree; with every
        // weight 1, 276 tokens fit in 9 bits. (A limit below that is never reached: with
        // the weights all 1, the loop stops with what it has.)
        if (depths[0] <= limit || keys[n - 1] >> 16 == 1) {
            for (size_t i = 0; i < n; i++) lengths[keys[i] & 0xFFFF] = (uint8_t)depths[i];
            return size_of(weights, keys, n, lengths);
        }
        for (size_t i = 0; i < n; i++) keys[i] = (((keys[i] >> 16) + 1) >> 1) << 16 | (keys[i] & 0xFFFF);
    }
}
