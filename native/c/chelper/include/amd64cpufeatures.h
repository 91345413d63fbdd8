/*
 * The CPU features SubstrateVM asks about on x86-64, one char (0 or 1) per feature. The builder reads this header
 * to learn the field offsets (the names are the contract: AMD64LibCHelper.CPUFeatures), so the order is ours.
 * Written for Usher's native build.
 */
#ifndef USHER_AMD64_CPU_FEATURES_H
#define USHER_AMD64_CPU_FEATURES_H

typedef struct {
    /* CPUID leaf 1, EDX */
    char fCX8, fCMOV, fFXSR, fHT, fMMX, fSSE, fSSE2, fTSC, fFLUSH;
    /* CPUID leaf 1, ECX */
    char fSSE3, fSSSE3, fSSE4_1, fSSE4_2, fPOPCNT, fAES, fCLMUL, fAVX, fFMA, fF16C, fHV;
    /* CPUID leaf 7.0, EBX */
    char fBMI1, fAVX2, fBMI2, fERMS, fRTM, fADX, fSHA, fFLUSHOPT, fCLWB;
    char fAVX512F, fAVX512DQ, fAVX512PF, fAVX512ER, fAVX512CD, fAVX512BW, fAVX512VL, fAVX512_IFMA;
    /* CPUID leaf 7.0, ECX */
    char fAVX512_VBMI, fAVX512_VBMI2, fAVX512_VNNI, fAVX512_BITALG, fAVX512_VPOPCNTDQ, fAVX512_VPCLMULQDQ;
    char fAVX512_VAES, fGFNI, fPKU, fOSPKE, fCET_SS, fRDPID;
    /* CPUID leaf 7.0, EDX */
    char fFSRM, fSERIALIZE, fCET_IBT, fAVX512_FP16;
    /* CPUID leaf 7.1 */
    char fSHA512, fAVX_IFMA, fAPX_F, fAVX10_1, fAVX10_2;
    /* extended leaves 0x80000001 and 0x80000007 */
    char fLZCNT, fSSE4A, fAMD_3DNOW_PREFETCH, fRDTSCP, fTSCINV_BIT, fTSCINV;
    /* derived: usable when AVX is */
    char fVZEROUPPER;
} CPUFeatures;

void determineCPUFeatures(CPUFeatures *features);
int checkCPUFeatures(const char *buildtime_feature_mask);
int checkCPUFeaturesOrExit(const char *buildtime_feature_mask, const char *error_message);

#endif
