// The search for the sync marker's first three bytes, AB 52 4C (format-spec.md,
// "Frames"): every payload read is searched for them (the escapes to take out, and a
// forged marker to reject), so the search runs at the speed of the memory, 32 bytes a
// step (64 with AVX2: half the steps for a load's 19 KB payload).
#include "CRouteLogSystem.h"
#include "processor_features.h"

#include <string.h>

// Clang's generic vectors: SSE2 on x86-64 and NEON on ARM64, with no code of either.
typedef uint8_t routelog_bytes16 __attribute__((vector_size(16)));

static inline routelog_bytes16 load16(const uint8_t *p) {
    routelog_bytes16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline int any_set(routelog_bytes16 v) {
    uint64_t halves[2];
    memcpy(halves, &v, sizeof halves);
    return (halves[0] | halves[1]) != 0;
}

/// Lanes where AB 52 4C starts at `p + lane` (all ones there, zero elsewhere); reads 18 bytes.
static inline routelog_bytes16 prefix_lanes(const uint8_t *p) {
    return (routelog_bytes16)(load16(p) == 0xAB) & (routelog_bytes16)(load16(p + 1) == 0x52)
        & (routelog_bytes16)(load16(p + 2) == 0x4C);
}

// The first prefix from `at` on, byte by byte.
static size_t bytewise(const uint8_t *bytes, size_t at, size_t count) {
    for (; at + 3 <= count; at++) {
        if (bytes[at] == 0xAB && bytes[at + 1] == 0x52 && bytes[at + 2] == 0x4C) return at;
    }
    return count;
}

static size_t search16(const uint8_t *bytes, size_t count) {
    size_t at = 0;
    // Two vectors a step while 34 bytes remain: the loads at +1 and +2 stay inside.
    while (at + 34 <= count) {
        routelog_bytes16 low = prefix_lanes(bytes + at), high = prefix_lanes(bytes + at + 16);
        if (any_set(low | high)) break;
        at += 32;
    }
    // The rest, and the step that found one, byte by byte (at most 33 + 31 bytes).
    return bytewise(bytes, at, count);
}

#if defined(__x86_64__)
typedef uint8_t routelog_bytes32 __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static inline routelog_bytes32 load32(const uint8_t *p) {
    routelog_bytes32 v;
    memcpy(&v, p, sizeof v);
    return v;
}

__attribute__((target("avx2"))) static inline routelog_bytes32 prefix_lanes32(const uint8_t *p) {
    return (routelog_bytes32)(load32(p) == 0xAB) & (routelog_bytes32)(load32(p + 1) == 0x52)
        & (routelog_bytes32)(load32(p + 2) == 0x4C);
}

// search16 with 32-byte vectors, two a step while 66 bytes remain; the step that found
// one and the rest byte by byte (at most 65 + 63 bytes).
__attribute__((target("avx2"))) static size_t search32(const uint8_t *bytes, size_t count) {
    size_t at = 0;
    while (at + 66 <= count) {
        routelog_bytes32 any = prefix_lanes32(bytes + at) | prefix_lanes32(bytes + at + 32);
        uint64_t quarters[4];
        memcpy(quarters, &any, sizeof quarters);
        if ((quarters[0] | quarters[1] | quarters[2] | quarters[3]) != 0) break;
        at += 64;
    }
    return bytewise(bytes, at, count);
}
#endif

size_t routelog_find_sync_prefix(const void *data, size_t count) {
    const uint8_t *bytes = data;
    if (count < 3) return count;
#if defined(__x86_64__)
    if (routelog_has_avx2()) return search32(bytes, count);
#endif
    return search16(bytes, count);
}

size_t routelog_find_sync_prefix_portable(const void *data, size_t count) {
    return count < 3 ? count : search16(data, count);
}
