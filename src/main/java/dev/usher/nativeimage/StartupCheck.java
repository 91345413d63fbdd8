package dev.usher.nativeimage;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The native executable's start-up check: every native library the configuration needs must have loaded, or Usher
 * does not start and says which one failed and why. QUIC is checked only when HTTP/3 is on, because loading it maps
 * 7 MB that a config without HTTP/3 never needs. On the JVM this check does nothing (missing libraries degrade
 * there, as before).
 */
public final class StartupCheck {
    private StartupCheck() {
    }

    /** The libraries a start needs. */
    public static Set<NativeLibrary> needed(boolean http3) {
        Set<NativeLibrary> libraries = EnumSet.of(NativeLibrary.EPOLL, NativeLibrary.BORINGSSL, NativeLibrary.ZSTD);
        if (http3) {
            libraries.add(NativeLibrary.QUIC);
        }
        return libraries;
    }

    /**
     * In the native executable: loads {@code libraries} and returns true when all loaded, otherwise prints one line
     * per failure on {@code err} and returns false. On the JVM: returns true at once.
     */
    public static boolean passes(Set<NativeLibrary> libraries, PrintStream err) {
        if (!NativeImage.isNativeExecutable()) {
            return true;
        }
        List<String> failures = failures(libraries);
        for (String failure : failures) {
            err.println("usher: not started: the native executable's " + failure);
        }
        return failures.isEmpty();
    }

    /** One message per library that did not load. */
    static List<String> failures(Set<NativeLibrary> libraries) {
        List<String> failures = new ArrayList<>();
        for (NativeLibrary library : libraries) {
            Throwable failure = library.loadFailure();
            if (failure != null) {
                failures.add(library.label() + " library did not load: " + describe(failure));
            }
        }
        return failures;
    }

    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(String.valueOf(failure));
        for (Throwable cause = failure.getCause(); cause != null && text.length() < 600; cause = cause.getCause()) {
            text.append("; caused by ").append(cause);
        }
        return text.toString();
    }
}
