// The tokens of a version 2 column's residuals (format-spec.md, "PointBlock", "Tokens"),
// as a save works them out: every value of every column goes through this loop once,
// and the choice of a column's order through the cost loop below. Both need the
// position of a value's top bit; with LZCNT that is one instruction, where the
// baseline's BSR takes several on some processors, and with AVX2 it comes four values
// at a time from the exponents of doubles. The outcome
// is the same on every path.
#include "CRouteLogSystem.h"
#include "processor_features.h"
#include "tokens.h"

#define VALUE_TOKENS ROUTELOG_VALUE_TOKENS

// u itself below 16; else 4e + the two bits under the top bit (e = the top bit's place).
// One table entry per count of leading zeros serves both cases (for e < 4: shift 0, mask
// 15, base 0), so there is neither a branch nor a select on the value: base in bits
// 0-7, shift in bits 8-13, mask in bits 16-19.
#define TOKEN_ENTRY(e) ((e) < 4 ? 15u << 16 : (uint32_t)(4 * (e)) | (uint32_t)((e) - 2) << 8 | 3u << 16)
#define TOKEN_ENTRIES_4(e) TOKEN_ENTRY(e), TOKEN_ENTRY((e) - 1), TOKEN_ENTRY((e) - 2), TOKEN_ENTRY((e) - 3)
#define TOKEN_ENTRIES_16(e) TOKEN_ENTRIES_4(e), TOKEN_ENTRIES_4((e) - 4), TOKEN_ENTRIES_4((e) - 8), TOKEN_ENTRIES_4((e) - 12)
static const uint32_t token_entries[64] = {  // indexed by leading zeros: e = 63 - index
    TOKEN_ENTRIES_16(63), TOKEN_ENTRIES_16(47), TOKEN_ENTRIES_16(31), TOKEN_ENTRIES_16(15)};

static inline __attribute__((always_inline)) unsigned token_of(uint64_t u) {
    uint32_t entry = token_entries[__builtin_clzll(u | 1)];
    return (entry & 0xFF) + (unsigned)((u >> ((entry >> 8) & 63)) & (entry >> 16));
}

static inline __attribute__((always_inline)) uint64_t zigzag(int64_t value) {
    return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

// The quotient of x by the divisor when x is a multiple of it (Codec/V2/ResidualModel.swift,
// ExactDivision, has the reasoning); 0 in *exact when it is not.
static inline __attribute__((always_inline)) int64_t quotient(const routelog_exact_division *d, int64_t x,
                                                              int *exact) {
    if (x & (((int64_t)1 << d->shift) - 1)) *exact = 0;
    int64_t q = (int64_t)((uint64_t)(x >> d->shift) * (uint64_t)d->odd_inverse);
    if (q < d->smallest || q > d->largest) *exact = 0;
    return q;
}

// Residual j minus the bias, as ColumnEncoderV2 defines it (wrapping): with order -1,
// u[j] itself (the residuals are there already); with order 0, 1 or 2, the value, the
// first or the second difference of `values` at j.
static inline __attribute__((always_inline)) int64_t residual_at(const uint64_t *u, const uint64_t *values, size_t j,
                                                                 int order, uint64_t bias) {
    switch (order) {
    case -1: return (int64_t)u[j];
    case 0: return (int64_t)(values[j] - bias);
    case 1: return (int64_t)((values[j + 1] - values[j]) - bias);
    default: return (int64_t)(((values[j + 2] - values[j + 1]) - (values[j + 1] - values[j])) - bias);
    }
}

// Four values an iteration, each counted into a histogram of its own (added up at the
// end): consecutive values often share a token, and adding to one counter back to back
// waits on the previous store every time.
static inline __attribute__((always_inline)) int tokenize_from(uint64_t *u, const uint64_t *values, int order,
                                                               uint64_t bias, size_t k,
                                                               const routelog_exact_division *division,
                                                               uint8_t *tokens, uint32_t *counts) {
    uint32_t *h0 = counts, *h1 = counts + VALUE_TOKENS, *h2 = counts + 2 * VALUE_TOKENS, *h3 = counts + 3 * VALUE_TOKENS;
    for (size_t t = 0; t < 4 * VALUE_TOKENS; t++) counts[t] = 0;
    int exact = 1;
#define ROUTELOG_U(j)                                                                                   \
    zigzag(division ? quotient(division, residual_at(u, values, j, order, bias), &exact)               \
                    : residual_at(u, values, j, order, bias))
    size_t j = 0;
    for (; j + 4 <= k; j += 4) {
        uint64_t u0 = ROUTELOG_U(j), u1 = ROUTELOG_U(j + 1), u2 = ROUTELOG_U(j + 2), u3 = ROUTELOG_U(j + 3);
        unsigned t0 = token_of(u0), t1 = token_of(u1), t2 = token_of(u2), t3 = token_of(u3);
        u[j] = u0, u[j + 1] = u1, u[j + 2] = u2, u[j + 3] = u3;
        tokens[j] = (uint8_t)t0, tokens[j + 1] = (uint8_t)t1, tokens[j + 2] = (uint8_t)t2, tokens[j + 3] = (uint8_t)t3;
        h0[t0]++, h1[t1]++, h2[t2]++, h3[t3]++;
    }
    for (; j < k; j++) {
        uint64_t v = ROUTELOG_U(j);
        unsigned t = token_of(v);
        u[j] = v;
        tokens[j] = (uint8_t)t;
        h0[t]++;
    }
#undef ROUTELOG_U
    for (size_t t = 0; t < VALUE_TOKENS; t++) h0[t] += h1[t] + h2[t] + h3[t];
    return exact;
}

// tokenize_from compiled for each order (so no loop tests it) and for a divisor or none.
#define ROUTELOG_FOR_EACH_ORDER(kernel, ...)                                                           \
    switch (order) {                                                                                   \
    case -1: return division ? kernel(-1, division, 1, __VA_ARGS__) : kernel(-1, 0, 0, __VA_ARGS__);  \
    case 0: return division ? kernel(0, division, 1, __VA_ARGS__) : kernel(0, 0, 0, __VA_ARGS__);     \
    case 1: return division ? kernel(1, division, 1, __VA_ARGS__) : kernel(1, 0, 0, __VA_ARGS__);     \
    default: return division ? kernel(2, division, 1, __VA_ARGS__) : kernel(2, 0, 0, __VA_ARGS__);    \
    }
#define ROUTELOG_SCALAR_TOKENIZE(o, d, divided, u, values, bias, k, tokens, counts) \
    tokenize_from(u, values, o, bias, k, d, tokens, counts)

static int tokenize_any(uint64_t *u, const uint64_t *values, int order, uint64_t bias, size_t k,
                        const routelog_exact_division *division, uint8_t *tokens, uint32_t *counts) {
    ROUTELOG_FOR_EACH_ORDER(ROUTELOG_SCALAR_TOKENIZE, u, values, bias, k, tokens, counts)
}

// Bits of zigzag(r - bias) for each order's residuals r at values[from..<to], added to
// costs (values[from - 2] and values[from - 1] start the differences).
static inline __attribute__((always_inline)) void order_costs(const int64_t *v, size_t from, size_t to,
                                                              const int64_t *biases, int64_t *costs) {
    int64_t c0 = 0, c1 = 0, c2 = 0;
    for (size_t j = from; j < to; j++) {
        int64_t d1 = (int64_t)((uint64_t)v[j] - (uint64_t)v[j - 1]);
        int64_t d0 = (int64_t)((uint64_t)v[j - 1] - (uint64_t)v[j - 2]);
        int64_t d2 = (int64_t)((uint64_t)d1 - (uint64_t)d0);
        uint64_t z0 = zigzag((int64_t)((uint64_t)v[j] - (uint64_t)biases[0]));
        uint64_t z1 = zigzag((int64_t)((uint64_t)d1 - (uint64_t)biases[1]));
        uint64_t z2 = zigzag((int64_t)((uint64_t)d2 - (uint64_t)biases[2]));
        c0 += z0 ? 64 - __builtin_clzll(z0) : 0;
        c1 += z1 ? 64 - __builtin_clzll(z1) : 0;
        c2 += z2 ? 64 - __builtin_clzll(z2) : 0;
    }
    costs[0] += c0, costs[1] += c1, costs[2] += c2;
}

int routelog_tokenize_residuals_portable(uint64_t *u, size_t k, const routelog_exact_division *division,
                                         uint8_t *tokens, uint32_t *counts) {
    return tokenize_any(u, 0, -1, 0, k, division, tokens, counts);
}

int routelog_tokenize_differences_portable(const int64_t *values, int order, int64_t bias, size_t k,
                                           const routelog_exact_division *division, uint64_t *u, uint8_t *tokens,
                                           uint32_t *counts) {
    return tokenize_any(u, (const uint64_t *)values, order, (uint64_t)bias, k, division, tokens, counts);
}

void routelog_order_costs_portable(const int64_t *values, size_t from, size_t to, const int64_t *biases,
                                   int64_t *costs) {
    order_costs(values, from, to, biases, costs);
}

#if defined(__x86_64__)
__attribute__((target("lzcnt,bmi,bmi2")))
static int tokenize_lzcnt(uint64_t *u, const uint64_t *values, int order, uint64_t bias, size_t k,
                          const routelog_exact_division *division, uint8_t *tokens, uint32_t *counts) {
    ROUTELOG_FOR_EACH_ORDER(ROUTELOG_SCALAR_TOKENIZE, u, values, bias, k, tokens, counts)
}

__attribute__((target("lzcnt,bmi,bmi2")))
static void order_costs_lzcnt(const int64_t *values, size_t from, size_t to, const int64_t *biases, int64_t *costs) {
    order_costs(values, from, to, biases, costs);
}

#include <immintrin.h>

// Eight values at a time with AVX2, in two vectors of four. A value's token comes from
// the value as a double, which is exact below 2^52 (made by placing the value in the
// significand of 2^52 and subtracting 2^52): its upper 32 bits are the exponent (1023 +
// the top bit's place e) from bit 20 and the significand's top bits under it, so a shift
// by 18 gives 4 × (1023 + e) + the two bits under the top bit, the token + 4092. Eight
// values with one at 2^52 or more go the scalar way.
//
// Shaped for speed: the upper halves of the two vectors' doubles are taken into one
// vector (and the values' lower halves into another, for the values below 16, which are
// their own tokens), so the tokens are worked out eight at a time in 32-bit lanes, and
// packed into eight bytes with one shuffle and one store; the histograms (a count is a
// load and a store) read the tokens back from there, which is cheaper than taking each
// lane out of the vector.
//
// Compiled twice, with `divided` fixed. With a divisor, each value is first divided as
// quotient() divides it, and its checks are gathered over the column: AVX2 has neither
// an arithmetic shift of 64-bit lanes (a logical one, with the sign's bits put back
// above) nor their product (three 32-bit products, the low 64 bits of x × inverse).
__attribute__((target("avx2,lzcnt,bmi,bmi2"), always_inline))
static inline int tokenize_avx2_kernel(uint64_t *u, const uint64_t *values, const int order, uint64_t residual_bias, size_t k,
                                       const routelog_exact_division *division, uint8_t *tokens, uint32_t *counts,
                                       const int divided) {
    uint32_t *h0 = counts, *h1 = counts + VALUE_TOKENS, *h2 = counts + 2 * VALUE_TOKENS, *h3 = counts + 3 * VALUE_TOKENS;
    // The histograms cleared with vector stores: the loop the compiler made into a call
    // of memset took its `rep stosb` path for 4 KB, which callgrind counts byte by byte
    // (4,100 instructions a column). The empty asm keeps the loop a loop.
    for (size_t t = 0; t < 4 * VALUE_TOKENS; t += 32) {
        __asm__("" : : "r"(counts + t) : "memory");
        for (int s = 0; s < 4; s++) _mm256_storeu_si256((__m256i *)(counts + t + 8 * s), _mm256_setzero_si256());
    }
    const __m256i zero = _mm256_setzero_si256(), two_52 = _mm256_set1_epi64x(0x4330000000000000);
    const __m256i at_least_2_52 = _mm256_set1_epi64x((long long)0xFFF0000000000000ull);
    // 4 × 1023 (the exponent's bias, times 4); the upper half of a double of 16 (e = 4).
    const __m256i bias = _mm256_set1_epi32(4 * 1023), sixteen = _mm256_set1_epi32(1027 << 20);
    // Byte 0 of each 32-bit lane ([a0 a1 b0 b1 | a2 a3 b2 b3], a: the first vector's, b:
    // the second's) to where the two 128-bit halves, ORed, have them in order.
    const __m256i pack = _mm256_setr_epi8(0, 4, -1, -1, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                          -1, -1, 0, 4, -1, -1, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i vbias = _mm256_set1_epi64x((long long)residual_bias);
    // The checks of quotient() gathered over the column: the values ORed (their low bits
    // tested at the end), and each quotient's zigzag against the largest one in range,
    // 2 × largest where the smallest is -largest (an odd part over 1; with 1 every
    // quotient is in range); a zigzag of 2^63 or more (signed, below 0) is out of range
    // too, and found from the top bit of the zigzags ORed. Where it took both bounds and
    // the low bits on every value, it made 10 instructions of 8 values, now 7 (callgrind:
    // 4,000 fewer a save of a 3,600-point walk).
    __m256i inverse = zero, inverse_high = zero, largest_zigzag = zero, out_of_range = zero, ored = zero,
            zigzags_ored = zero;
    __m128i shift = _mm_setzero_si128(), sign_shift = _mm_setzero_si128();
    if (divided) {
        inverse = _mm256_set1_epi64x(division->odd_inverse);
        inverse_high = _mm256_set1_epi64x((long long)((uint64_t)division->odd_inverse >> 32));
        largest_zigzag = _mm256_set1_epi64x(division->largest == INT64_MAX ? INT64_MAX : 2 * division->largest);
        shift = _mm_cvtsi64_si128(division->shift);
        sign_shift = _mm_cvtsi64_si128(64 - division->shift);  // 64 (shift 0): no bits to put back
    }
    int exact = 1;
    size_t j = 0, eights = k & ~(size_t)7;
    for (; j < eights; j += 8) {
        __m256i z[2];
        for (int half = 0; half < 2; half++) {
            // The residuals from the values, four a step (three overlapping loads for the
            // second differences), where a separate pass wrote them to u and this one
            // read them back.
            __m256i v;
            if (order < 0) {
                v = _mm256_loadu_si256((const __m256i *)(u + j + 4 * half));
            } else {
                const uint64_t *s = values + j + 4 * half;
                __m256i a = _mm256_loadu_si256((const __m256i *)s);
                if (order == 0) {
                    v = a;
                } else {
                    __m256i b = _mm256_loadu_si256((const __m256i *)(s + 1)), d = _mm256_sub_epi64(b, a);
                    v = order == 1 ? d
                                   : _mm256_sub_epi64(_mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(s + 2)), b), d);
                }
                v = _mm256_sub_epi64(v, vbias);
            }
            if (divided) {
                ored = _mm256_or_si256(ored, v);
                __m256i negative = _mm256_cmpgt_epi64(zero, v);
                __m256i x = _mm256_or_si256(_mm256_srl_epi64(v, shift), _mm256_sll_epi64(negative, sign_shift));
                __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), inverse),
                                                 _mm256_mul_epu32(x, inverse_high));
                v = _mm256_add_epi64(_mm256_mul_epu32(x, inverse), _mm256_slli_epi64(cross, 32));
            }
            // zigzag: (v << 1) ^ (v >> 63, arithmetic), the sign from a comparison.
            z[half] = _mm256_xor_si256(_mm256_slli_epi64(v, 1), _mm256_cmpgt_epi64(zero, v));
            _mm256_storeu_si256((__m256i *)(u + j + 4 * half), z[half]);
            if (divided) out_of_range = _mm256_or_si256(out_of_range, _mm256_cmpgt_epi64(z[half], largest_zigzag));
        }
        __m256i any = _mm256_or_si256(z[0], z[1]);
        if (divided) zigzags_ored = _mm256_or_si256(zigzags_ored, any);
        if (__builtin_expect(_mm256_testz_si256(any, any), 0)) {
            // Eight zeros (runs of them are common: a column that rarely changes, as
            // phones' accuracies, with order 1): token 0 eight times, counted at once.
            _mm_storel_epi64((__m128i *)(tokens + j), _mm_setzero_si128());
            h0[0] += 8;
            continue;
        }
        if (__builtin_expect(!_mm256_testz_si256(any, at_least_2_52), 0)) {
            for (int l = 0; l < 8; l++) tokens[j + l] = (uint8_t)token_of(u[j + l]);
        } else {
            __m256 d0 = _mm256_castpd_ps(_mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(z[0], two_52)),
                                                       _mm256_castsi256_pd(two_52)));
            __m256 d1 = _mm256_castpd_ps(_mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(z[1], two_52)),
                                                       _mm256_castsi256_pd(two_52)));
            __m256i high = _mm256_castps_si256(_mm256_shuffle_ps(d0, d1, _MM_SHUFFLE(3, 1, 3, 1)));
            __m256i low = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(z[0]), _mm256_castsi256_ps(z[1]),
                                                                _MM_SHUFFLE(2, 0, 2, 0)));
            __m256i large = _mm256_sub_epi32(_mm256_srli_epi32(high, 18), bias);
            __m256i token = _mm256_blendv_epi8(large, low, _mm256_cmpgt_epi32(sixteen, high));
            __m256i bytes = _mm256_shuffle_epi8(token, pack);
            _mm_storel_epi64((__m128i *)(tokens + j),
                             _mm_or_si128(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1)));
        }
        h0[tokens[j]]++, h1[tokens[j + 1]]++, h2[tokens[j + 2]]++, h3[tokens[j + 3]]++;
        h0[tokens[j + 4]]++, h1[tokens[j + 5]]++, h2[tokens[j + 6]]++, h3[tokens[j + 7]]++;
    }
    if (divided) {
        __m256i inexact = _mm256_or_si256(_mm256_and_si256(ored, _mm256_set1_epi64x((long long)((1ull << division->shift) - 1))),
                                          out_of_range);
        if (!_mm256_testz_si256(inexact, inexact)) exact = 0;
        if (division->largest != INT64_MAX && !_mm256_testz_si256(zigzags_ored, _mm256_set1_epi64x(INT64_MIN))) exact = 0;
    }
    for (; j < k; j++) {
        int64_t r = residual_at(u, values, j, order, residual_bias);
        uint64_t v = zigzag(divided ? quotient(division, r, &exact) : r);
        unsigned t = token_of(v);
        u[j] = v;
        tokens[j] = (uint8_t)t;
        h0[t]++;
    }
    for (size_t t = 0; t < VALUE_TOKENS; t++) h0[t] += h1[t] + h2[t] + h3[t];
    return exact;
}

#define ROUTELOG_AVX2_TOKENIZE(o, d, divided, u, values, bias, k, tokens, counts) \
    tokenize_avx2_kernel(u, values, o, bias, k, d, tokens, counts, divided)

__attribute__((target("avx2,lzcnt,bmi,bmi2")))
static int tokenize_avx2(uint64_t *u, const uint64_t *values, int order, uint64_t bias, size_t k,
                         const routelog_exact_division *division, uint8_t *tokens, uint32_t *counts) {
    // The bounds ExactDivision gives (an odd part of 1, or over 1), which the vector
    // check of the range assumes; any others the scalar way.
    if (division && !(division->smallest == INT64_MIN && division->largest == INT64_MAX) &&
        !(division->largest >= 0 && division->largest <= INT64_MAX / 2 && division->smallest == -division->largest))
        return tokenize_lzcnt(u, values, order, bias, k, division, tokens, counts);
    ROUTELOG_FOR_EACH_ORDER(ROUTELOG_AVX2_TOKENIZE, u, values, bias, k, tokens, counts)
}

static int tokenize_best(uint64_t *u, const uint64_t *values, int order, uint64_t bias, size_t k,
                         const routelog_exact_division *division, uint8_t *tokens, uint32_t *counts) {
    if (routelog_has_avx2() && routelog_has_bmi2()) return tokenize_avx2(u, values, order, bias, k, division, tokens, counts);
    return routelog_has_bmi2() ? tokenize_lzcnt(u, values, order, bias, k, division, tokens, counts)
                               : tokenize_any(u, values, order, bias, k, division, tokens, counts);
}

int routelog_tokenize_residuals(uint64_t *u, size_t k, const routelog_exact_division *division, uint8_t *tokens,
                                uint32_t *counts) {
    return tokenize_best(u, 0, -1, 0, k, division, tokens, counts);
}

int routelog_tokenize_differences(const int64_t *values, int order, int64_t bias, size_t k,
                                  const routelog_exact_division *division, uint64_t *u, uint8_t *tokens,
                                  uint32_t *counts) {
    return tokenize_best(u, (const uint64_t *)values, order, (uint64_t)bias, k, division, tokens, counts);
}

// Bits of four zigzagged values below 2^52, 0 for 0: the exponent of each as a double,
// as tokenize_avx2_kernel finds it; a zero's exponent field is 0, and its count (-1022)
// is raised to 0 by a maximum over the 32-bit halves (the upper halves are then 0 too).
__attribute__((target("avx2"), always_inline))
static inline __m256i bit_lengths(__m256i z) {
    const __m256i two_52 = _mm256_set1_epi64x(0x4330000000000000), offset = _mm256_set1_epi64x(1022);
    __m256d exact = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(z, two_52)), _mm256_castsi256_pd(two_52));
    __m256i length = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(exact), 52), offset);
    return _mm256_max_epi32(length, _mm256_setzero_si256());
}

// order_costs four values at a time; a group with a zigzagged residual at 2^52 or more
// goes the scalar way (the same sums).
__attribute__((target("avx2,lzcnt,bmi,bmi2")))
static void order_costs_avx2(const int64_t *v, size_t from, size_t to, const int64_t *biases, int64_t *costs) {
    const __m256i zero = _mm256_setzero_si256(), b0 = _mm256_set1_epi64x(biases[0]),
                  b1 = _mm256_set1_epi64x(biases[1]), b2 = _mm256_set1_epi64x(biases[2]);
    __m256i c0 = zero, c1 = zero, c2 = zero;
    size_t j = from;
    for (; j + 4 <= to; j += 4) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(v + j)), x1 = _mm256_loadu_si256((const __m256i *)(v + j - 1)),
                x2 = _mm256_loadu_si256((const __m256i *)(v + j - 2));
        __m256i d1 = _mm256_sub_epi64(x, x1), d2 = _mm256_sub_epi64(d1, _mm256_sub_epi64(x1, x2));
        __m256i r0 = _mm256_sub_epi64(x, b0), r1 = _mm256_sub_epi64(d1, b1), r2 = _mm256_sub_epi64(d2, b2);
        __m256i z0 = _mm256_xor_si256(_mm256_slli_epi64(r0, 1), _mm256_cmpgt_epi64(zero, r0));
        __m256i z1 = _mm256_xor_si256(_mm256_slli_epi64(r1, 1), _mm256_cmpgt_epi64(zero, r1));
        __m256i z2 = _mm256_xor_si256(_mm256_slli_epi64(r2, 1), _mm256_cmpgt_epi64(zero, r2));
        __m256i high = _mm256_srli_epi64(_mm256_or_si256(z0, _mm256_or_si256(z1, z2)), 52);
        if (__builtin_expect(!_mm256_testz_si256(high, high), 0)) {
            int64_t group[3] = {0, 0, 0};
            order_costs(v, j, j + 4, biases, group);
            c0 = _mm256_add_epi64(c0, _mm256_set_epi64x(0, 0, 0, group[0]));
            c1 = _mm256_add_epi64(c1, _mm256_set_epi64x(0, 0, 0, group[1]));
            c2 = _mm256_add_epi64(c2, _mm256_set_epi64x(0, 0, 0, group[2]));
            continue;
        }
        c0 = _mm256_add_epi64(c0, bit_lengths(z0));
        c1 = _mm256_add_epi64(c1, bit_lengths(z1));
        c2 = _mm256_add_epi64(c2, bit_lengths(z2));
    }
    int64_t lanes[3][4];
    _mm256_storeu_si256((__m256i *)lanes[0], c0);
    _mm256_storeu_si256((__m256i *)lanes[1], c1);
    _mm256_storeu_si256((__m256i *)lanes[2], c2);
    for (int o = 0; o < 3; o++) costs[o] += lanes[o][0] + lanes[o][1] + lanes[o][2] + lanes[o][3];
    order_costs(v, j, to, biases, costs);
}

void routelog_order_costs(const int64_t *values, size_t from, size_t to, const int64_t *biases, int64_t *costs) {
    if (routelog_has_avx2() && routelog_has_bmi2()) order_costs_avx2(values, from, to, biases, costs);
    else if (routelog_has_bmi2()) order_costs_lzcnt(values, from, to, biases, costs);
    else order_costs(values, from, to, biases, costs);
}
#else
int routelog_tokenize_residuals(uint64_t *u, size_t k, const routelog_exact_division *division, uint8_t *tokens,
                                uint32_t *counts) {
    return tokenize_any(u, 0, -1, 0, k, division, tokens, counts);
}

int routelog_tokenize_differences(const int64_t *values, int order, int64_t bias, size_t k,
                                  const routelog_exact_division *division, uint64_t *u, uint8_t *tokens,
                                  uint32_t *counts) {
    return tokenize_any(u, (const uint64_t *)values, order, (uint64_t)bias, k, division, tokens, counts);
}

void routelog_order_costs(const int64_t *values, size_t from, size_t to, const int64_t *biases, int64_t *costs) {
    order_costs(values, from, to, biases, costs);
}
#endif
