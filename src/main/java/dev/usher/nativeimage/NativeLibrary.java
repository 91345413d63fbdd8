package dev.usher.nativeimage;

import io.netty.channel.epoll.Epoll;
import io.netty.handler.codec.compression.Zstd;
import io.netty.handler.codec.quic.Quic;
import io.netty.handler.ssl.OpenSsl;

import java.util.function.Supplier;

/**
 * The JNI libraries Usher loads, and how to ask each whether it loaded. On the JVM a missing one only costs a
 * feature (Usher falls back and logs it); the native executable is built with all of them, so there a missing one
 * is a broken build.
 */
public enum NativeLibrary {
    EPOLL("epoll (netty-transport-native-epoll)", Epoll::unavailabilityCause),
    BORINGSSL("BoringSSL (netty-tcnative-boringssl-static)", OpenSsl::unavailabilityCause),
    ZSTD("zstd (zstd-jni)", Zstd::cause),
    QUIC("QUIC (netty-codec-native-quic)", Quic::unavailabilityCause);

    private final String label;
    private final Supplier<Throwable> cause;

    NativeLibrary(String label, Supplier<Throwable> cause) {
        this.label = label;
        this.cause = cause;
    }

    /** What to call it in a message. */
    public String label() {
        return label;
    }

    /** Loads the library (once per process, as the library's own class does) and returns why it failed, or null. */
    public Throwable loadFailure() {
        try {
            return cause.get();
        } catch (LinkageError e) {
            return e;
        }
    }
}
