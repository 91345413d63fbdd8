package dev.usher.nativeimage;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code usher selftest}: loads every native library and exercises each JDK native whose JDK 25 behaviour the native
 * build supplies itself (native/jdk/jdk25-compat.c, see {@link JdkNativesCheck}). Prints one line per check and
 * returns the exit code: 0 when all passed. Meant for the native executable (NativeSelfTestIT runs it there); on
 * the JVM it checks the JDK's own natives, which pass too.
 */
public final class SelfTest {
    private final PrintStream out;
    private final List<String> failed = new ArrayList<>();
    private int passed;

    private SelfTest(PrintStream out) {
        this.out = out;
    }

    public static int run(PrintStream out) {
        return new SelfTest(out).all();
    }

    private int all() {
        // first: SDP must be configured before this process opens its first socket (see JdkNativesCheck)
        check("JDK native SdpSupport.convert0 (com.sun.sdp.conf rules apply)", JdkNativesCheck::sdpConversion);
        check("JDK native UnixNativeDispatcher.fstatat0 (attributes of a file)", JdkNativesCheck::fstatatExisting);
        check("JDK native UnixNativeDispatcher.fstatat0 (a missing file throws)", JdkNativesCheck::fstatatMissing);
        for (NativeLibrary library : NativeLibrary.values()) {
            check(library.label() + " loads", () -> {
                Throwable failure = library.loadFailure();
                if (failure != null) {
                    throw new IllegalStateException(StartupCheck.describe(failure), failure);
                }
            });
        }
        int total = passed + failed.size();
        if (failed.isEmpty()) {
            out.println("usher selftest: all " + total + " checks passed ("
                    + (NativeImage.isNativeExecutable() ? "native executable" : "JVM") + ")");
            return 0;
        }
        out.println("usher selftest: " + failed.size() + " of " + total + " checks failed: " + failed);
        return 1;
    }

    /** One check: passes unless it throws. */
    interface Check {
        void run() throws IOException;
    }

    private void check(String name, Check check) {
        try {
            check.run();
            passed++;
            out.println("ok      " + name);
        } catch (IOException | RuntimeException | LinkageError e) {
            failed.add(name);
            out.println("FAILED  " + name + ": " + e);
        }
    }
}
