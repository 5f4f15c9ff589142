// What the processor offers beyond the target's baseline, asked once and kept. Shared
// by the C files that choose a wider path at run time; not part of the module's API.
#ifndef ROUTELOG_PROCESSOR_FEATURES_H
#define ROUTELOG_PROCESSOR_FEATURES_H

#if defined(__x86_64__)
/// 1 when the processor has AVX2 and the system saves its registers, else 0.
int routelog_has_avx2(void);

/// 1 when the processor has BMI1, BMI2 and LZCNT (one-instruction variable shifts, bit
/// fields and leading zero counts), else 0.
int routelog_has_bmi2(void);

/// 1 when the processor has AVX2 and FMA3 (fused multiply-add on YMM registers), else 0.
int routelog_has_fma(void);
#endif

#endif
