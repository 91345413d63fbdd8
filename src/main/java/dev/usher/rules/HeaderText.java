package dev.usher.rules;

import io.netty.handler.codec.http.HttpHeaderValidationUtil;

import java.nio.charset.StandardCharsets;

/**
 * Checks, at compile time, header text that comes from the config, so that Netty's header validation cannot throw
 * later on an event loop, per request. The config loader is meant to reject such text with a file position first;
 * this is the backstop. Also makes request-derived text safe for a {@code Location} value.
 */
final class HeaderText {
    private HeaderText() {
    }

    static String requireName(String name) {
        if (name == null || name.isEmpty() || HttpHeaderValidationUtil.validateToken(name) != -1) {
            throw new IllegalArgumentException("\"" + name + "\" is not a valid header name");
        }
        return name;
    }

    /** A field value: no control characters, no leading space, nothing Netty would turn into '?' (above U+00FF). */
    static String requireValue(String what, String value) {
        if (value.isEmpty()) {
            return value;
        }
        boolean latin1 = value.chars().allMatch(c -> c <= 0xFF);
        if (!latin1 || HttpHeaderValidationUtil.validateValidHeaderValue(value) != -1) {
            throw new IllegalArgumentException(what + " \"" + value + "\" is not a valid header value");
        }
        return value;
    }

    /**
     * Appends text from the request (whose chars are its bytes, as Netty's decoder reads them) to a Location value,
     * percent-encoding what may not appear there raw: controls, space, DEL and bytes above 0x7E.
     */
    static void appendForLocation(StringBuilder to, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x21 && c <= 0x7E) {
                to.append(c);
            } else if (c <= 0xFF) {
                percent(to, c);
            } else {
                for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    percent(to, b & 0xFF);
                }
            }
        }
    }

    /** Template text from the config: control characters refused, non-ASCII percent-encoded as UTF-8. */
    static String locationLiteral(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                throw new IllegalArgumentException("redirect target \"" + text + "\" contains a control character");
            }
            if (c < 0x80 && c != ' ') {
                out.append(c);
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < text.length() ? i + 2 : i + 1;
                for (byte b : text.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                    percent(out, b & 0xFF);
                }
                i = end - 1;
            }
        }
        return out.toString();
    }

    private static void percent(StringBuilder to, int b) {
        to.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
                .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
    }
}
