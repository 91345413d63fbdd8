package dev.usher.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How many connections a descriptor limit holds, and what limits.connections becomes with it. */
class OpenFileLimitTest {
    @Test
    void aConnectionCostsTwoDescriptorsAfterTheReserve() {
        assertThat(new OpenFileLimit(256).connectionsHeld()).isEqualTo((256 - 64 - 25) / 2);
        assertThat(new OpenFileLimit(1024).connectionsHeld()).isEqualTo((1024 - 64 - 102) / 2);
        assertThat(new OpenFileLimit(70).connectionsHeld()).isEqualTo(1);
        assertThat(new OpenFileLimit(0).connectionsHeld()).as("unknown").isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void unsetMeansWhatTheLimitHoldsAtMostTenThousand() {
        assertThat(new OpenFileLimit(1024).connections(0)).isEqualTo(429);
        assertThat(new OpenFileLimit(1_048_576).connections(0)).isEqualTo(10_000);
        assertThat(new OpenFileLimit(1024).lowered(0)).contains("429").contains("1024").contains("LimitNOFILE");
        assertThat(new OpenFileLimit(1_048_576).lowered(0)).isNull();
        assertThat(new OpenFileLimit(1024).warning(0)).isNull();
    }

    @Test
    void aConfiguredValueIsKeptAndWarnedAboutWhenTheLimitCannotHoldIt() {
        assertThat(new OpenFileLimit(1024).connections(5_000)).isEqualTo(5_000);
        assertThat(new OpenFileLimit(1024).warning(5_000)).contains("5000").contains("about 429");
        assertThat(new OpenFileLimit(1024).warning(400)).isNull();
        assertThat(new OpenFileLimit(1024).lowered(5_000)).isNull();
    }
}
