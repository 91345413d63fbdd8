/*
 * The CPU features SubstrateVM asks about on AArch64 (AArch64LibCHelper.CPUFeatures). Usher's native build targets
 * x86-64 only; the builder still reads this header while it prepares every architecture's C interface.
 * Written for Usher's native build.
 */
#ifndef USHER_AARCH64_CPU_FEATURES_H
#define USHER_AARCH64_CPU_FEATURES_H

typedef struct {
    char fFP, fASIMD, fEVTSTRM, fAES, fPMULL, fSHA1, fSHA2, fCRC32, fLSE, fDCPOP, fSHA3, fSHA512, fSVE, fSVE2;
    char fSTXR_PREFETCH, fA53MAC, fDMB_ATOMICS, fPACA, fSVEBITPERM, fFPHP, fASIMDHP;
} CPUFeatures;

#endif
