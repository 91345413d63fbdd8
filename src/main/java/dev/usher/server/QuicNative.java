package dev.usher.server;

import dev.usher.config.Listen;
import io.netty.handler.codec.quic.Quic;
import java.util.function.Supplier;

/**
 * Whether this process can serve HTTP/3: QUIC needs the native quiche library, shipped for Linux on x86-64 only.
 * Elsewhere Usher serves HTTPS over TCP alone and says so once at start.
 *
 * @param available whether the native QUIC library loaded
 * @param cause     why it did not, or null
 */
public record QuicNative(boolean available, Throwable cause) {
    /** Loads (or finds loaded) the native QUIC library of this platform. */
    public static QuicNative load() {
        return Quic.isAvailable() ? new QuicNative(true, null) : new QuicNative(false, Quic.unavailabilityCause());
    }

    /**
     * Loads the native library the first time it is asked for, not before: a config without HTTP/3 never maps
     * quiche's 7 MB into the process.
     */
    public static Supplier<QuicNative> onFirstUse() {
        return new Supplier<>() {
            private QuicNative loaded;

            @Override
            public synchronized QuicNative get() {
                if (loaded == null) {
                    loaded = load();
                }
                return loaded;
            }
        };
    }

    /** True when {@code listen} asks for HTTP/3 and it can be served here. */
    public boolean serves(Listen listen) {
        return listen.http3On() && available;
    }

    /**
     * The start-up line for a config that asks for HTTP/3 that cannot be served here, or null when there is nothing
     * to say (HTTP/3 is served, or was not asked for).
     */
    public String degradedNote(Listen listen) {
        if (!listen.http3On() || available) {
            return null;
        }
        return "HTTP/3 is off: the native QUIC library is not available on this platform ("
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "; " + cause
                + "); serving HTTPS over TCP only";
    }
}
