// A search for a byte string in a buffer: the C library's memmem where it has one (a
// GNU and BSD extension, fast and linear), for the few places that look for a line of
// text in a file read a piece at a time.
#define _GNU_SOURCE
#include <string.h>
#include "CRouteLogSystem.h"

int routelog_contains_bytes(const void *haystack, size_t haystack_count, const void *needle, size_t needle_count) {
    if (needle_count == 0) return 1;
    if (haystack_count < needle_count) return 0;
    return memmem(haystack, haystack_count, needle, needle_count) != NULL;
}
