package dev.usher.config;

import java.util.Locale;

/**
 * Reads the key of a stream: a listen address ({@link ListenAddresses}) with an optional {@code /tcp} (the default)
 * or {@code /udp}: {@code ":2222"}, {@code "2222"}, {@code "127.0.0.1:5432"}, {@code ":27015/udp"}.
 */
final class StreamKeys {
    /** A stream's address and transport. */
    record StreamKey(ListenAddress listen, StreamSetting.Protocol protocol) {
    }

    private StreamKeys() {
    }

    static StreamKey parse(String raw) throws BadValue {
        String s = raw.strip();
        StreamSetting.Protocol protocol = StreamSetting.Protocol.TCP;
        int slash = s.lastIndexOf('/');
        if (slash >= 0) {
            String suffix = s.substring(slash + 1).toLowerCase(Locale.ROOT);
            protocol = switch (suffix) {
                case "tcp" -> StreamSetting.Protocol.TCP;
                case "udp" -> StreamSetting.Protocol.UDP;
                default -> throw new BadValue("a stream is \"PORT\", \"PORT/tcp\" or \"PORT/udp\", as in \":27015/udp\""
                        + "; got \"/" + s.substring(slash + 1) + "\"");
            };
            s = s.substring(0, slash);
        }
        return new StreamKey(ListenAddresses.parse(s), protocol);
    }

    /**
     * True when two listeners of one transport would take the same port: the same port (not 0, which the system
     * picks) on the same host, or on every interface for either.
     */
    static boolean overlap(ListenAddress a, ListenAddress b) {
        if (a.port() == 0 || a.port() != b.port()) {
            return false;
        }
        return anyHost(a) || anyHost(b) || a.host().equals(b.host());
    }

    private static boolean anyHost(ListenAddress address) {
        return address.anyHost() || address.host().equals("0.0.0.0") || address.host().equals("::");
    }
}
