// See processor_features.h.
#include "processor_features.h"

#if defined(__x86_64__)
#include <cpuid.h>

// `probe`'s answer, asked once and kept in `*cached` (-1 until then). Threads that race
// the first call each ask, and get the same answer.
static int remembered(int *cached, int (*probe)(void)) {
    int v = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (v < 0) {
        v = probe();
        __atomic_store_n(cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

// AVX2 in the processor (leaf 7, EBX bit 5) and the YMM registers saved by the system
// (OSXSAVE, then XCR0's SSE and AVX state bits).
static int probe_avx2(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) return 0;
    unsigned xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    return (xcr0_low & 0x6) == 0x6 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_AVX2);
}

// BMI1 and BMI2 in leaf 7 (EBX bits 3 and 8), LZCNT in leaf 0x80000001 (ECX bit 5).
static int probe_bmi2(void) {
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_BMI) && (ebx & bit_BMI2) &&
           __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && (ecx & bit_LZCNT);
}

// FMA3 in leaf 1 (ECX bit 12), with the same YMM state as AVX2.
static int probe_fma(void) {
    unsigned eax, ebx, ecx, edx;
    return probe_avx2() && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_FMA);
}

int routelog_has_avx2(void) {
    static int cached = -1;
    return remembered(&cached, probe_avx2);
}

int routelog_has_bmi2(void) {
    static int cached = -1;
    return remembered(&cached, probe_bmi2);
}
int routelog_has_fma(void) {
    static int cached = -1;
    return remembered(&cached, probe_fma);
}
#endif
