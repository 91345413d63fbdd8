package dev.usher.nativeimage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The self-test's checks against the JVM's own JDK 25 natives: they must pass here, or they would not tell JDK 25's
 * behaviour from another (NativeExecutableIT runs the same checks in the native executable).
 */
class SelfTestTest {
    /**
     * {@code usher selftest} in a JVM of its own: the SDP check must come before the process's first socket, which
     * in the test JVM other tests have long opened.
     */
    @Test
    void everyCheckPassesOnTheJdk25ItDescribes() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(java, "-Xmx64m", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "dev.usher.Main", "selftest")).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        int code = p.exitValue();
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
