package dev.usher.rules;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/** Reads {@code Authorization: Basic base64(user:password)} (RFC 7617), as UTF-8 as browsers send it. */
final class BasicCredentials {
    /** Far more than any real user name and password; longer headers are not worth decoding. */
    private static final int MAX_HEADER = 4096;

    private BasicCredentials() {
    }

    /** The decoded {@code user:password} bytes, or null when the header is missing or not valid Basic. */
    static byte[] decode(String header) {
        if (header == null || header.length() > MAX_HEADER) {
            return null;
        }
        int start = skipSpaces(header, 0);
        if (!header.regionMatches(true, start, "Basic", 0, 5)) {
            return null;
        }
        start += 5;
        if (start >= header.length() || header.charAt(start) != ' ') {
            return null;
        }
        start = skipSpaces(header, start);
        int end = header.length();
        while (end > start && header.charAt(end - 1) == ' ') {
            end--;
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(header.substring(start, end));
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (colon(decoded) < 0) {
            Arrays.fill(decoded, (byte) 0);
            return null;
        }
        return decoded;
    }

    /** Index of the first colon, which ends the user name (a user name cannot contain one). */
    static int colon(byte[] credentials) {
        for (int i = 0; i < credentials.length; i++) {
            if (credentials[i] == ':') {
                return i;
            }
        }
        return -1;
    }

    static String user(byte[] credentials) {
        return new String(credentials, 0, colon(credentials), StandardCharsets.UTF_8);
    }

    /** The password as chars, which the caller clears after use; the temporary buffer is cleared here. */
    static char[] password(byte[] credentials) {
        int from = colon(credentials) + 1;
        CharBuffer chars = StandardCharsets.UTF_8.decode(ByteBuffer.wrap(credentials, from, credentials.length - from));
        char[] password = new char[chars.remaining()];
        chars.get(password);
        if (chars.hasArray()) {
            Arrays.fill(chars.array(), '\0');
        }
        return password;
    }

    private static int skipSpaces(String s, int from) {
        while (from < s.length() && s.charAt(from) == ' ') {
            from++;
        }
        return from;
    }
}
