package dev.usher.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CpuBudgetTest {
    @Test
    void countsKernelCpuLists() {
        assertThat(CpuBudget.countRanges("0")).isEqualTo(1);
        assertThat(CpuBudget.countRanges("0-1")).isEqualTo(2);
        assertThat(CpuBudget.countRanges("0-3,6,8-9")).isEqualTo(7);
    }

    @Test
    void eventLoopThreadsFollowTheCpusTheJvmMayUse() {
        assertThat(CpuBudget.eventLoopThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }
}
