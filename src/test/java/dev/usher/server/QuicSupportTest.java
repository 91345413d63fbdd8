package dev.usher.server;

import dev.usher.config.Listen;
import dev.usher.config.ListenAddress;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The decisions around the QUIC listener that need no network: buffer advice and the no-native-library path. */
class QuicSupportTest {
    private static final Listen ON = new Listen(new ListenAddress("", 80), new ListenAddress("", 443), true);
    private static final Listen OFF = new Listen(new ListenAddress("", 80), new ListenAddress("", 443), false);

    @Test
    void smallUdpBuffersGiveOneWarningWithTheSysctlThatFixesThem() {
        // The Linux default: rmem_default/wmem_default 212992, reported doubled.
        String advice = QuicListener.bufferAdvice(425_984, 425_984);
        assertThat(advice).contains("receive 416 KiB").contains("send 416 KiB")
                .contains("sysctl -w net.core.rmem_max=7500000 net.core.wmem_max=7500000");
        assertThat(QuicListener.bufferAdvice(15_000_000, 425_984)).contains("send 416 KiB");
        assertThat(QuicListener.bufferAdvice(15_000_000, 15_000_000)).isNull();
    }

    @Test
    void withoutTheNativeLibraryHttp3IsNotServedAndStartSaysWhy() {
        QuicNative missing = new QuicNative(false, new UnsatisfiedLinkError("no netty_quiche42 in java.library.path"));
        assertThat(missing.serves(ON)).isFalse();
        assertThat(missing.degradedNote(ON)).contains("HTTP/3 is off").contains("no netty_quiche42")
                .contains("serving HTTPS over TCP only");
        assertThat(missing.degradedNote(OFF)).isNull(); // not asked for: nothing to say
    }

    @Test
    void withTheNativeLibraryHttp3FollowsTheConfig() {
        QuicNative present = new QuicNative(true, null);
        assertThat(present.serves(ON)).isTrue();
        assertThat(present.serves(OFF)).isFalse();
        assertThat(present.degradedNote(ON)).isNull();
        assertThat(QuicNative.load().available()).as("quiche loads on Linux x86-64").isTrue();
    }
}
