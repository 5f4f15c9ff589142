// The search for the sync marker's first three bytes, AB 52 4C (format-spec.md,
// "Frames"): every payload read is searched for them (the escapes to take out, and a
// forged marker to reject), so the search runs at the speed of the memory, 32 bytes a step.
#include "CRouteLogSystem.h"

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

size_t routelog_find_sync_prefix(const void *data, size_t count) {
    const uint8_t *bytes = data;
    if (count < 3) return count;
    size_t at = 0;
    // Two vectors a step while 34 bytes remain: the loads at +1 and +2 stay inside.
    while (at + 34 <= count) {
        routelog_bytes16 low = prefix_lanes(bytes + at), high = prefix_lanes(bytes + at + 16);
        if (any_set(low | high)) break;
        at += 32;
    }
    // The rest, and the step that found one, byte by byte (at most 33 + 31 bytes).
    for (; at + 3 <= count; at++) {
        if (bytes[at] == 0xAB && bytes[at + 1] == 0x52 && bytes[at + 2] == 0x4C) return at;
    }
    return count;
}
