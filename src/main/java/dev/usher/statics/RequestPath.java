package dev.usher.statics;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The path of a request for a file, decoded and checked before it comes near the file system. Percent-decoding is
 * strict (a bad escape or invalid UTF-8 is refused, never guessed at); a segment {@code ..} is refused whatever its
 * spelling ({@code %2e%2e}, {@code .%2E}), as are an encoded slash or backslash, a backslash, NUL and other control
 * characters. What is left is a list of plain names, none of them {@code .} or {@code ..}, so joining them under the
 * root cannot leave it (symlinks are the file lookup's to check).
 *
 * @param segments      the names, in order, empty segments ({@code //}) and {@code .} dropped
 * @param trailingSlash the path ended with {@code /} (a folder is asked for as such)
 * @param hidden        some segment starts with {@code .} (other than a leading {@code .well-known})
 */
record RequestPath(List<String> segments, boolean trailingSlash, boolean hidden) {
    /** Why a path is refused. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why, null, false, false);
        }
    }

    RequestPath {
        segments = List.copyOf(segments);
    }

    /** The path of a request URI: origin form ({@code /a/b?q}) or absolute form ({@code http://host/a/b}). */
    static RequestPath parse(String uri) throws Refused {
        String path = uri;
        int scheme = path.indexOf("://");
        if (scheme > 0 && scheme < 8) {
            int slash = path.indexOf('/', scheme + 3);
            path = slash < 0 ? "/" : path.substring(slash);
        }
        int end = path.length();
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        path = path.substring(0, end);
        if (!path.startsWith("/")) {
            throw new Refused("not a path");
        }
        List<String> segments = new ArrayList<>();
        boolean hidden = false;
        int start = 1;
        while (start <= path.length()) {
            int slash = path.indexOf('/', start);
            if (slash < 0) {
                slash = path.length();
            }
            String segment = decode(path, start, slash);
            if (segment.equals("..")) {
                throw new Refused("a .. segment");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                if (segment.startsWith(".") && !(segments.isEmpty() && segment.equals(".well-known"))) {
                    hidden = true;
                }
                segments.add(segment);
            }
            start = slash + 1;
        }
        return new RequestPath(segments, path.endsWith("/"), hidden);
    }

    /** One segment, percent-decoded as UTF-8, with what must never reach the file system refused. */
    private static String decode(String path, int from, int to) throws Refused {
        boolean escaped = false;
        for (int i = from; i < to; i++) {
            char c = path.charAt(i);
            if (c == '%') {
                escaped = true;
            } else if (c < 0x20 || c == 0x7f || c == '\\' || c > 0x7e) {
                throw new Refused("a control character, a backslash or a raw non-ASCII byte");
            }
        }
        if (!escaped) {
            return path.substring(from, to);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            char c = path.charAt(i);
            if (c != '%') {
                bytes.write(c);
                continue;
            }
            if (i + 2 >= to) {
                throw new Refused("a truncated escape");
            }
            int hi = Character.digit(path.charAt(i + 1), 16);
            int lo = Character.digit(path.charAt(i + 2), 16);
            if (hi < 0 || lo < 0) {
                throw new Refused("a bad escape");
            }
            int b = hi << 4 | lo;
            if (b < 0x20 || b == 0x7f || b == '/' || b == '\\') {
                throw new Refused("an encoded slash, backslash or control character");
            }
            bytes.write(b);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new Refused("invalid UTF-8");
        }
    }
}
