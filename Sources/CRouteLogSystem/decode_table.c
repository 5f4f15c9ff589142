// A version 2 column's decode table (format-spec.md, "PointBlock", "Version 2", "The
// code"; the entry layout is HuffmanDecodeTable's, Codec/V2/HuffmanCode.swift): one
// entry for each window of `longest` bits, giving the token whose code the window
// starts with. Every column a load decodes makes one, so it is made here in one pass
// over the listed symbols with no call per symbol: made in Swift, with a closure per
// symbol for each of the two passes, it took about 5,100 instructions for a column
// of a walk (callgrind), most of them outside the loops that write the entries.
#include "CRouteLogSystem.h"
#include "tokens.h"

#define VALUE_TOKENS ROUTELOG_VALUE_TOKENS
#define LONGEST_CODE 11
#define RUN_TOKENS ROUTELOG_RUN_TOKENS
#define ENTRY_SLOW (1ull << 7)
#define ENTRY_RUN (1ull << 14)
#define ENTRY_CODE_SHIFT 8
#define ENTRY_BASE_SHIFT 16
#define BASE_LIMIT (1ull << 48)

static inline uint64_t entry_of(uint64_t total, uint64_t code, uint64_t base, uint64_t flags) {
    return total | code << ENTRY_CODE_SHIFT | flags | base << ENTRY_BASE_SHIFT;
}

// The low `length` bits (1...11) of `code` in reverse order: the streams hold a code's
// first bit lowest.
static inline uint32_t reversed(uint32_t code, unsigned length) {
    return __builtin_bitreverse32(code) >> (32 - length);
}

// `entry` at every `step`-th entry from entries[first] to the end of a table of
// `size` (a power of two, as `step` is), four stores a turn where there is room.
static inline void fill_same(uint64_t *entries, size_t first, size_t step, size_t size, uint64_t entry) {
    uint64_t *p = entries + first, *end = entries + size;
    for (; p + 3 * step < end; p += 4 * step) p[0] = entry, p[step] = entry, p[2 * step] = entry, p[3 * step] = entry;
    for (; p < end; p += step) *p = entry;
}

// Every entry of a table `bits` wide whose low `length` bits are `code`: the symbol's
// whole value when its extra bits fit in the table's width too, else its base and
// extra-bit count (a base of 2^48 or more: the symbol, marked slow).
static void fill(uint64_t *entries, unsigned symbol, unsigned length, uint32_t code, unsigned bits) {
    const int is_value = symbol < VALUE_TOKENS;
    const unsigned extra = routelog_symbol_extra_bits(symbol);
    const uint64_t base = is_value ? routelog_value_token_base(symbol)
                                   : 1ull << extra;
    const size_t size = (size_t)1 << bits, step = (size_t)1 << length;
    if (is_value && length + extra <= bits) {
        const uint64_t first = entry_of(length + extra, length + extra, base, 0);
        if (extra == 0) return fill_same(entries, code, step, size, first);
        // The entries of a whole value differ only in the extra bits, which count up
        // from one entry to the next and start again every 2^extra entries (a value
        // token with extra bits has 2 or more, so four at a time).
        const uint64_t one = 1ull << ENTRY_BASE_SHIFT, four = 4 * one;
        const size_t repeats = (size_t)1 << extra;
        for (uint64_t *p = entries + code, *end = entries + size; p < end;) {
            uint64_t v0 = first, v1 = first + one, v2 = first + 2 * one, v3 = first + 3 * one;
            for (size_t r = 0; r < repeats; r += 4, p += 4 * step, v0 += four, v1 += four, v2 += four, v3 += four) {
                p[0] = v0, p[step] = v1, p[2 * step] = v2, p[3 * step] = v3;
            }
        }
        return;
    }
    fill_same(entries, code, step, size,
              base >= BASE_LIMIT ? entry_of(length, length, symbol, ENTRY_SLOW)
                                 : entry_of(length + extra, length, base, is_value ? 0 : ENTRY_RUN));
}

int routelog_fill_decode_table(const uint8_t *lengths, size_t value_tokens_listed, size_t run_tokens_listed,
                               uint64_t *entries) {
    // The listed symbols: value tokens 0..<value_tokens_listed, then run tokens.
    unsigned symbols[VALUE_TOKENS + RUN_TOKENS], count = 0;
    uint32_t per_length[LONGEST_CODE + 2] = {0}, next[LONGEST_CODE + 2] = {0};
    unsigned longest = 0;
    if (value_tokens_listed > VALUE_TOKENS) value_tokens_listed = VALUE_TOKENS;
    if (run_tokens_listed > RUN_TOKENS) run_tokens_listed = RUN_TOKENS;
    // With no branch on whether a symbol is used (a column uses some of the listed
    // symbols, in no order the processor could guess): an unused one is written and
    // then written over, and counted at length 0, which no code has.
    for (size_t s = 0; s < value_tokens_listed + run_tokens_listed; s++) {
        unsigned symbol = s < value_tokens_listed ? (unsigned)s : VALUE_TOKENS + (unsigned)(s - value_tokens_listed);
        unsigned length = lengths[symbol] <= LONGEST_CODE ? lengths[symbol] : 0;
        symbols[count] = symbol;
        count += length != 0;
        per_length[length]++;
        longest = length > longest ? length : longest;
    }
    per_length[0] = 0;
    // DEFLATE's first code of each length.
    uint32_t first = 0;
    for (unsigned length = 1; length <= LONGEST_CODE; length++) {
        first = (first + per_length[length - 1]) << 1;
        next[length] = first;
    }
    // A complete code covers every entry; a single code of one bit covers half, and
    // the rest must say that no code starts there (total and code 0).
    if (count < 2) {
        for (size_t i = 0; i < ((size_t)1 << longest); i++) entries[i] = ENTRY_SLOW;
    }
    for (unsigned j = 0; j < count; j++) {
        unsigned symbol = symbols[j], length = lengths[symbol];
        fill(entries, symbol, length, reversed(next[length]++, length), longest);
    }
    return (int)longest;
}
