package dev.usher.tls;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the router needs from a TLS ClientHello: the SNI host name (extension 0, RFC 6066) and the offered ALPN
 * protocols (extension 16, RFC 7301).
 *
 * @param serverName lower-case host name without a trailing dot, or null when the client sent none
 * @param alpn       the offered protocols in the client's order; empty when the client sent no ALPN extension
 */
record ClientHello(String serverName, List<String> alpn) {
    private static final int SNI = 0;
    private static final int ALPN = 16;
    private static final int HOST_NAME = 0;
    private static final int MAX_HOST_NAME = 253;

    ClientHello {
        alpn = List.copyOf(alpn);
    }

    /**
     * Parses the body of a ClientHello handshake message (after the 4-byte handshake header), without moving the
     * buffer's indices. Every length is checked against its enclosing structure, so a hostile or truncated hello
     * gives null rather than an exception or a read past the message.
     *
     * @return the parsed hello, or null when it is malformed
     */
    static ClientHello parse(ByteBuf body) {
        Reader r = new Reader(body, body.readerIndex(), body.writerIndex());
        // legacy_version (2), random (32), then session_id<0..32>, cipher_suites<2..2^16-2>, compression<1..2^8-1>
        if (!r.skip(34) || !r.skipVector(1) || !r.skipVector(2) || !r.skipVector(1)) {
            return null;
        }
        if (r.remaining() == 0) {
            return new ClientHello(null, List.of()); // a hello without extensions is legal (TLS 1.2 and older)
        }
        Reader extensions = r.vector(2);
        if (extensions == null || r.remaining() != 0) {
            return null;
        }
        String serverName = null;
        List<String> alpn = null;
        while (extensions.remaining() > 0) {
            int type = extensions.u16();
            Reader data = extensions.vector(2);
            if (type < 0 || data == null) {
                return null;
            }
            if (type == SNI) {
                if (serverName != null || (serverName = hostName(data)) == null) {
                    return null; // a duplicate extension is illegal (RFC 8446 section 4.2)
                }
            } else if (type == ALPN) {
                if (alpn != null || (alpn = protocols(data)) == null) {
                    return null;
                }
            }
        }
        return new ClientHello(serverName, alpn == null ? List.of() : alpn);
    }

    /** The first host_name entry of a server_name_list, checked to be a plausible DNS name; null when malformed. */
    private static String hostName(Reader data) {
        Reader list = data.vector(2);
        if (list == null || data.remaining() != 0) {
            return null;
        }
        while (list.remaining() > 0) {
            int nameType = list.u8();
            Reader name = list.vector(2);
            if (nameType < 0 || name == null) {
                return null;
            }
            if (nameType == HOST_NAME) {
                return validHostName(name.latin1());
            }
        }
        return null;
    }

    private static String validHostName(String name) {
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1); // RFC 6066 forbids it, some clients send it anyway
        }
        if (name.isEmpty() || name.length() > MAX_HOST_NAME) {
            return null;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            // Names reach logs and map lookups: letters, digits, '-', '.', '_' (and ':' for a client that sends an
            // IPv6 literal against the RFC). Anything else, '*' included, cannot be a name Usher serves.
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == ':';
            if (!ok) {
                return null;
            }
        }
        return name.toLowerCase(Locale.ROOT);
    }

    /** The protocol_name_list of an ALPN extension; null when malformed (RFC 7301 forbids empty names). */
    private static List<String> protocols(Reader data) {
        Reader list = data.vector(2);
        if (list == null || data.remaining() != 0 || list.remaining() == 0) {
            return null;
        }
        List<String> protocols = new ArrayList<>();
        while (list.remaining() > 0) {
            Reader name = list.vector(1);
            if (name == null || name.remaining() == 0) {
                return null;
            }
            protocols.add(name.latin1());
        }
        return protocols;
    }

    /** A bounded cursor over [position, limit) of a buffer; every read fails softly (-1 or null) past the limit. */
    private static final class Reader {
        private final ByteBuf buf;
        private int position;
        private final int limit;

        Reader(ByteBuf buf, int position, int limit) {
            this.buf = buf;
            this.position = position;
            this.limit = limit;
        }

        int remaining() {
            return limit - position;
        }

        boolean skip(int n) {
            if (n > remaining()) {
                return false;
            }
            position += n;
            return true;
        }

        int u8() {
            return remaining() < 1 ? -1 : buf.getUnsignedByte(position++);
        }

        int u16() {
            if (remaining() < 2) {
                return -1;
            }
            int value = buf.getUnsignedShort(position);
            position += 2;
            return value;
        }

        /** A vector with a {@code lengthBytes}-byte length prefix, as its own reader; null when it overruns. */
        Reader vector(int lengthBytes) {
            int length = lengthBytes == 1 ? u8() : u16();
            if (length < 0 || length > remaining()) {
                return null;
            }
            Reader inner = new Reader(buf, position, position + length);
            position += length;
            return inner;
        }

        boolean skipVector(int lengthBytes) {
            return vector(lengthBytes) != null;
        }

        /** The rest as ISO-8859-1, so that every byte maps to one char and nothing is lost or rejected. */
        String latin1() {
            String s = buf.toString(position, remaining(), StandardCharsets.ISO_8859_1);
            position = limit;
            return s;
        }
    }
}
