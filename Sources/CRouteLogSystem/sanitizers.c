// Whether this build checks memory with AddressSanitizer: the codec's shelf of working
// memory (ScratchMemory.swift) keeps nothing then, so that every buffer is freed and a
// read past its end or after its release is reported, as without the shelf.
#include "CRouteLogSystem.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROUTELOG_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ROUTELOG_ASAN 1
#endif

int routelog_built_with_address_sanitizer(void) {
#ifdef ROUTELOG_ASAN
    return 1;
#else
    return 0;
#endif
}
