package dev.usher.protocol;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CompressBudgetTest {
    @Test
    void capsOpenStreamsPerCodingAndGivesThemBackWhenTheEncoderGoes() {
        CompressBudget budget = new CompressBudget();
        for (int i = 0; i < CompressBudget.ZSTD_STREAMS; i++) {
            assertThat(budget.take(CompressAcceptEncoding.ZSTD)).isTrue();
        }
        assertThat(budget.take(CompressAcceptEncoding.ZSTD)).as("one over the cap").isFalse();
        assertThat(budget.take(CompressAcceptEncoding.GZIP)).as("gzip has its own cap").isTrue();

        EmbeddedChannel encoder = new EmbeddedChannel(budget.releaser(CompressAcceptEncoding.ZSTD));
        encoder.finishAndReleaseAll(); // the body ended or the connection went: the handler is removed
        assertThat(budget.open(CompressAcceptEncoding.ZSTD)).isEqualTo(CompressBudget.ZSTD_STREAMS - 1);
        assertThat(budget.take(CompressAcceptEncoding.ZSTD)).isTrue();
    }
}
