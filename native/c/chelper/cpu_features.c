/*
 * x86-64 CPU feature detection for SubstrateVM (AMD64LibCHelper): which instruction set extensions this CPU and
 * its operating system support, and the start-up check that the CPU has every feature the image was compiled for.
 * Written for Usher's native build.
 */
#include <cpuid.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd64cpufeatures.h"

enum reg { EAX, EBX, ECX, EDX };

/* One feature: CPUID leaf/subleaf, register and bit, and where it goes in CPUFeatures. */
struct feature_bit {
    unsigned leaf, subleaf;
    enum reg reg;
    unsigned bit;
    size_t offset;
};

#define F(leaf, subleaf, reg, bit, field) {leaf, subleaf, reg, bit, offsetof(CPUFeatures, field)}

static const struct feature_bit plain_features[] = {
    F(1, 0, EDX, 4, fTSC),          F(1, 0, EDX, 8, fCX8),          F(1, 0, EDX, 15, fCMOV),
    F(1, 0, EDX, 19, fFLUSH),       F(1, 0, EDX, 23, fMMX),         F(1, 0, EDX, 24, fFXSR),
    F(1, 0, EDX, 25, fSSE),         F(1, 0, EDX, 26, fSSE2),        F(1, 0, EDX, 28, fHT),
    F(1, 0, ECX, 0, fSSE3),         F(1, 0, ECX, 1, fCLMUL),        F(1, 0, ECX, 9, fSSSE3),
    F(1, 0, ECX, 19, fSSE4_1),      F(1, 0, ECX, 20, fSSE4_2),      F(1, 0, ECX, 23, fPOPCNT),
    F(1, 0, ECX, 25, fAES),         F(1, 0, ECX, 31, fHV),          F(7, 0, EBX, 3, fBMI1),
    F(7, 0, EBX, 8, fBMI2),         F(7, 0, EBX, 9, fERMS),         F(7, 0, EBX, 11, fRTM),
    F(7, 0, EBX, 19, fADX),         F(7, 0, EBX, 23, fFLUSHOPT),    F(7, 0, EBX, 24, fCLWB),
    F(7, 0, EBX, 29, fSHA),         F(7, 0, ECX, 3, fPKU),          F(7, 0, ECX, 4, fOSPKE),
    F(7, 0, ECX, 7, fCET_SS),       F(7, 0, ECX, 8, fGFNI),         F(7, 0, ECX, 22, fRDPID),
    F(7, 0, EDX, 4, fFSRM),         F(7, 0, EDX, 14, fSERIALIZE),   F(7, 0, EDX, 20, fCET_IBT),
    F(7, 1, EAX, 0, fSHA512),       F(0x80000001, 0, ECX, 5, fLZCNT), F(0x80000001, 0, ECX, 6, fSSE4A),
    F(0x80000001, 0, ECX, 8, fAMD_3DNOW_PREFETCH), F(0x80000001, 0, EDX, 27, fRDTSCP),
    F(0x80000007, 0, EDX, 8, fTSCINV_BIT),
};

/* Need the OS to save the AVX (YMM) state: XCR0 bits 1 and 2. */
static const struct feature_bit avx_features[] = {
    F(1, 0, ECX, 28, fAVX), F(1, 0, ECX, 12, fFMA), F(1, 0, ECX, 29, fF16C), F(7, 0, EBX, 5, fAVX2),
    F(7, 1, EAX, 23, fAVX_IFMA),
};

/* Need the OS to save the AVX-512 state as well: XCR0 bits 5, 6 and 7 (VAES and VPCLMULQDQ count as their
   AVX-512 forms, as in HotSpot). */
static const struct feature_bit avx512_features[] = {
    F(7, 0, EBX, 16, fAVX512F),   F(7, 0, EBX, 17, fAVX512DQ),   F(7, 0, EBX, 21, fAVX512_IFMA),
    F(7, 0, EBX, 26, fAVX512PF),  F(7, 0, EBX, 27, fAVX512ER),   F(7, 0, EBX, 28, fAVX512CD),
    F(7, 0, EBX, 30, fAVX512BW),  F(7, 0, EBX, 31, fAVX512VL),   F(7, 0, ECX, 1, fAVX512_VBMI),
    F(7, 0, ECX, 6, fAVX512_VBMI2), F(7, 0, ECX, 11, fAVX512_VNNI), F(7, 0, ECX, 12, fAVX512_BITALG),
    F(7, 0, ECX, 14, fAVX512_VPOPCNTDQ), F(7, 0, EDX, 23, fAVX512_FP16), F(7, 0, ECX, 9, fAVX512_VAES),
    F(7, 0, ECX, 10, fAVX512_VPCLMULQDQ),
};

#undef F

static int cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
    unsigned max = __get_cpuid_max(leaf & 0x80000000u, NULL);
    if (max < leaf) {
        memset(regs, 0, 4 * sizeof(unsigned));
        return 0;
    }
    __cpuid_count(leaf, subleaf, regs[EAX], regs[EBX], regs[ECX], regs[EDX]);
    return 1;
}

static int has_bit(unsigned leaf, unsigned subleaf, enum reg reg, unsigned bit) {
    unsigned regs[4];
    return cpuid(leaf, subleaf, regs) && ((regs[reg] >> bit) & 1u);
}

static void set_all(CPUFeatures *features, const struct feature_bit *table, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (has_bit(table[i].leaf, table[i].subleaf, table[i].reg, table[i].bit)) {
            ((char *)features)[table[i].offset] = 1;
        }
    }
}

/* The XCR0 register: which register states the operating system saves on a context switch. */
static uint64_t xcr0(void) {
    if (!has_bit(1, 0, ECX, 27)) { /* OSXSAVE: XGETBV may be used */
        return 0;
    }
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static int is_intel_or_amd(void) {
    unsigned regs[4];
    cpuid(0, 0, regs);
    char vendor[13];
    memcpy(vendor, &regs[EBX], 4);
    memcpy(vendor + 4, &regs[EDX], 4);
    memcpy(vendor + 8, &regs[ECX], 4);
    vendor[12] = '\0';
    return strcmp(vendor, "GenuineIntel") == 0 || strcmp(vendor, "AuthenticAMD") == 0 ||
           strcmp(vendor, "HygonGenuine") == 0;
}

void determineCPUFeatures(CPUFeatures *features) {
    memset(features, 0, sizeof(*features));
    set_all(features, plain_features, sizeof(plain_features) / sizeof(plain_features[0]));

    uint64_t saved = xcr0();
    int avx_state = (saved & 0x6) == 0x6;
    int avx512_state = avx_state && (saved & 0xE0) == 0xE0;
    if (avx_state) {
        set_all(features, avx_features, sizeof(avx_features) / sizeof(avx_features[0]));
        features->fVZEROUPPER = features->fAVX;
    }
    if (avx512_state) {
        set_all(features, avx512_features, sizeof(avx512_features) / sizeof(avx512_features[0]));
    }
    /* APX: CPUID 7.1 EDX bit 21 and its extended GPR state (XCR0 bit 19) */
    features->fAPX_F = has_bit(7, 1, EDX, 21) && ((saved >> 19) & 1u);
    /* AVX10: CPUID 7.1 EDX bit 19, the version in leaf 0x24 EBX[7:0] */
    if (avx512_state && has_bit(7, 1, EDX, 19)) {
        unsigned regs[4];
        cpuid(0x24, 0, regs);
        unsigned version = regs[EBX] & 0xFF;
        features->fAVX10_1 = version >= 1;
        features->fAVX10_2 = version >= 2;
    }
    /* an invariant TSC counts only on the vendors that define the bit that way */
    features->fTSCINV = features->fTSCINV_BIT && is_intel_or_amd();
}

/* The mask is the build-time CPUFeatures, bitwise negated, padded with ones to whole 64-bit words. */
#define MASK_WORDS ((sizeof(CPUFeatures) + 7) / 8)

int checkCPUFeatures(const char *buildtime_feature_mask) {
    union {
        CPUFeatures features;
        uint64_t words[MASK_WORDS];
    } present;
    memset(&present, 0, sizeof(present));
    determineCPUFeatures(&present.features);
    for (size_t i = 0; i < MASK_WORDS; i++) {
        uint64_t required;
        memcpy(&required, buildtime_feature_mask + i * 8, 8);
        if ((present.words[i] | required) != UINT64_MAX) {
            return 1; /* a feature the image needs is missing */
        }
    }
    return 0;
}

int checkCPUFeaturesOrExit(const char *buildtime_feature_mask, const char *error_message) {
    int missing = checkCPUFeatures(buildtime_feature_mask);
    if (missing) {
        fputs(error_message, stderr);
        fputc('\n', stderr);
        exit(1);
    }
    return missing;
}
