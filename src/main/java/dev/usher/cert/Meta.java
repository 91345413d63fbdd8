package dev.usher.cert;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** The informational {@code meta.json} beside a stored certificate: for people and status pages, never read back. */
final class Meta {
    private Meta() {
    }

    static byte[] json(String name, String issuerId, CertifiedKey cert, Instant savedAt) {
        String json = "{\"name\":" + quote(name.toLowerCase(java.util.Locale.ROOT))
                + ",\"issuer\":" + quote(issuerId)
                + ",\"sha256\":" + quote(cert.sha256())
                + ",\"notBefore\":" + quote(cert.notBefore().toString())
                + ",\"notAfter\":" + quote(cert.notAfter().toString())
                + ",\"savedAt\":" + quote(savedAt.toString()) + "}\n";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> b.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return b.append('"').toString();
    }
}
