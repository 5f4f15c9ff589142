// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every
// RouteLog record frame and file header (format-spec.md, "Checksums").
#include "CRouteLogSystem.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u

// Tables built once, by the first checksum that needs them, whichever thread that is:
// pthread_once makes every other thread wait for a table and see it whole (two threads
// building one at once wrote the same values, but a race all the same).
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = table[0][n];
        for (int k = 1; k < 8; k++) {
            c = table[0][c & 0xff] ^ (c >> 8);
            table[k][n] = c;
        }
    }
}

uint32_t routelog_crc32c_extend_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&table_once, build_table);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (length >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
            table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
            table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
        p += 8;
        length -= 8;
    }
    while (length--) c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>

// The crc32 instruction takes 3 cycles and can start one a cycle: one chain of them
// runs at a third of the speed three independent chains do. Long buffers are taken
// three blocks at a time, each block's CRC register computed from zero beside the
// others, then joined: the register after blocks A and B is A's register carried
// over B's length of zero bytes, xor B's register from zero. Carrying a register over
// a fixed length is linear, so it is four table lookups (one a byte of the register).
#define CRC32C_BLOCK 1024
static uint32_t carry_table[4][256];
static pthread_once_t carry_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2")))
static uint32_t carry_over_zeros(uint32_t r, size_t length) {
    uint64_t c = r;
    for (size_t i = 0; i < length; i += 8) c = _mm_crc32_u64(c, 0);
    return (uint32_t)c;
}

__attribute__((target("sse4.2")))
static void build_carry_table(void) {
    for (int k = 0; k < 4; k++)
        for (uint32_t v = 0; v < 256; v++) carry_table[k][v] = carry_over_zeros(v << (8 * k), CRC32C_BLOCK);
}

static inline uint32_t carry_over_block(uint32_t r) {
    return carry_table[0][r & 0xff] ^ carry_table[1][(r >> 8) & 0xff] ^ carry_table[2][(r >> 16) & 0xff] ^
           carry_table[3][r >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    uint64_t c = ~crc;
    if (length >= 3 * CRC32C_BLOCK) {
        pthread_once(&carry_once, build_carry_table);
        do {
            uint64_t c1 = 0, c2 = 0;
            for (size_t i = 0; i < CRC32C_BLOCK; i += 8) {
                uint64_t v0, v1, v2;
                memcpy(&v0, p + i, 8);
                memcpy(&v1, p + CRC32C_BLOCK + i, 8);
                memcpy(&v2, p + 2 * CRC32C_BLOCK + i, 8);
                c = _mm_crc32_u64(c, v0);
                c1 = _mm_crc32_u64(c1, v1);
                c2 = _mm_crc32_u64(c2, v2);
            }
            c = carry_over_block(carry_over_block((uint32_t)c) ^ (uint32_t)c1) ^ (uint32_t)c2;
            p += 3 * CRC32C_BLOCK;
            length -= 3 * CRC32C_BLOCK;
        } while (length >= 3 * CRC32C_BLOCK);
    }
    while (length >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length--) c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}

static int has_sse42(void) {
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        unsigned eax, ebx, ecx, edx;
        v = (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2)) ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

uint32_t routelog_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    return has_sse42() ? crc32c_sse42(crc, data, length)
                       : routelog_crc32c_extend_portable(crc, data, length);
}
int routelog_crc32c_is_accelerated(void) { return has_sse42(); }

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

uint32_t routelog_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (length >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __crc32cd(c, v);
        p += 8;
        length -= 8;
    }
    while (length--) c = __crc32cb(c, *p++);
    return ~c;
}
int routelog_crc32c_is_accelerated(void) { return 1; }

#else
uint32_t routelog_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    return routelog_crc32c_extend_portable(crc, data, length);
}
int routelog_crc32c_is_accelerated(void) { return 0; }
#endif
