package dev.usher.tls;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Hand-made ClientHellos, for what real clients never send: old versions, odd framing, broken lengths. */
final class Hellos {
    static final int TLS_1_1 = 0x0302, TLS_1_2 = 0x0303;

    private Hellos() {
    }

    /** A ClientHello handshake message (type, 3-byte length, body) a TLS 1.2 server with an EC key can answer. */
    static byte[] handshake(int version, String serverName, List<String> alpn) {
        return message(1, body(version, serverName, alpn));
    }

    /** The ClientHello body alone, as {@link ClientHello#parse} reads it. */
    static byte[] body(int version, String serverName, List<String> alpn) {
        Out body = new Out();
        body.u16(version).bytes(new byte[32]).u8(0);
        // ECDHE-ECDSA / ECDHE-RSA with AES-GCM (TLS 1.2) and AES-CBC-SHA (what a TLS 1.1 client could use)
        body.u16(8).u16(0xC02B).u16(0xC02F).u16(0xC009).u16(0xC013);
        body.u8(1).u8(0);
        Out extensions = new Out();
        if (serverName != null) {
            byte[] name = serverName.getBytes(StandardCharsets.US_ASCII);
            extensions.u16(0).u16(name.length + 5).u16(name.length + 3).u8(0).u16(name.length).bytes(name);
        }
        if (!alpn.isEmpty()) {
            Out list = new Out();
            alpn.forEach(p -> list.u8(p.length()).bytes(p.getBytes(StandardCharsets.US_ASCII)));
            extensions.u16(16).u16(list.size() + 2).u16(list.size()).bytes(list.toBytes());
        }
        extensions.u16(10).u16(6).u16(4).u16(0x001d).u16(0x0017); // supported_groups: x25519, secp256r1
        extensions.u16(11).u16(2).u8(1).u8(0); // ec_point_formats: uncompressed
        extensions.u16(13).u16(8).u16(6).u16(0x0403).u16(0x0804).u16(0x0401); // signature_algorithms
        body.u16(extensions.size()).bytes(extensions.toBytes());
        return body.toBytes();
    }

    /** A handshake message of {@code type}: 1-byte type, 3-byte length, body. */
    static byte[] message(int type, byte[] body) {
        return new Out().u8(type).u8(body.length >>> 16).u16(body.length & 0xFFFF).bytes(body).toBytes();
    }

    /** {@code handshake} in TLS handshake records of at most {@code fragment} bytes each. */
    static byte[] records(byte[] handshake, int fragment) {
        Out out = new Out();
        for (int i = 0; i < handshake.length; i += fragment) {
            int n = Math.min(fragment, handshake.length - i);
            out.u8(22).u16(0x0301).u16(n).bytes(java.util.Arrays.copyOfRange(handshake, i, i + n));
        }
        return out.toBytes();
    }

    private static final class Out {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Out u8(int v) {
            bytes.write(v);
            return this;
        }

        Out u16(int v) {
            bytes.write(v >>> 8);
            bytes.write(v);
            return this;
        }

        Out bytes(byte[] b) {
            bytes.writeBytes(b);
            return this;
        }

        int size() {
            return bytes.size();
        }

        byte[] toBytes() {
            return bytes.toByteArray();
        }
    }
}
