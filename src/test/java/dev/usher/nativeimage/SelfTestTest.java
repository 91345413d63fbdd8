package dev.usher.nativeimage;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The self-test's checks against the JVM's own JDK 25 natives: they must pass here, or they would not tell JDK 25's
 * behaviour from another (NativeExecutableIT runs the same checks in the native executable).
 */
class SelfTestTest {
    @Test
    void everyCheckPassesOnTheJdk25ItDescribes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = SelfTest.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(output).isZero();
        assertThat(output).contains("ok      JDK native SdpSupport.convert0")
                .contains("ok      JDK native UnixNativeDispatcher.fstatat0 (a missing file throws)")
                .contains("ok      BoringSSL (netty-tcnative-boringssl-static) loads")
                .contains("all 7 checks passed (JVM)");
    }

    @Test
    void theStartupCheckPassesOnTheJvmAndFindsEveryLibraryLoadable() {
        assertThat(StartupCheck.passes(EnumSet.allOf(NativeLibrary.class), System.err)).isTrue();
        assertThat(StartupCheck.failures(EnumSet.allOf(NativeLibrary.class))).isEmpty();
    }

    @Test
    void needsQuicOnlyWithHttp3() {
        assertThat(StartupCheck.needed(false)).doesNotContain(NativeLibrary.QUIC).contains(NativeLibrary.EPOLL,
                NativeLibrary.BORINGSSL, NativeLibrary.ZSTD);
        assertThat(StartupCheck.needed(true)).contains(NativeLibrary.QUIC);
    }

    @Test
    void describesAFailureWithItsCauses() {
        String text = StartupCheck.describe(new UnsatisfiedLinkError("no netty_tcnative")
                .initCause(new IllegalStateException("extraction failed")));
        assertThat(text).contains("no netty_tcnative").contains("caused by java.lang.IllegalStateException: extraction failed");
    }
}
