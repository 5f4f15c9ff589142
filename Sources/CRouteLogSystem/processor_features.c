// See processor_features.h.
#include "processor_features.h"

#if defined(__x86_64__)
#include <cpuid.h>

int routelog_has_avx2(void) {
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        // AVX2 in the processor (leaf 7, EBX bit 5) and the YMM registers saved by the
        // system (OSXSAVE, then XCR0's SSE and AVX state bits).
        unsigned eax, ebx, ecx, edx;
        v = 0;
        if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE) && (ecx & bit_AVX)) {
            unsigned xcr0_low, xcr0_high;
            __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
            if ((xcr0_low & 0x6) == 0x6 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_AVX2)) v = 1;
        }
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

int routelog_has_bmi2(void) {
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        // BMI1 and BMI2 in leaf 7 (EBX bits 3 and 8), LZCNT in leaf 0x80000001 (ECX bit 5).
        unsigned eax, ebx, ecx, edx;
        v = 0;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_BMI) && (ebx & bit_BMI2) &&
            __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && (ecx & bit_LZCNT))
            v = 1;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif
