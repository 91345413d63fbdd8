/*
 * The CPU features SubstrateVM asks about on RISC-V (RISCV64LibCHelper.CPUFeatures). Usher's native build targets
 * x86-64 only; the builder still reads this header while it prepares every architecture's C interface.
 * Written for Usher's native build.
 */
#ifndef USHER_RISCV64_CPU_FEATURES_H
#define USHER_RISCV64_CPU_FEATURES_H

typedef struct {
    char fI, fM, fA, fF, fD, fC, fV;
} CPUFeatures;

#endif
