package dev.usher.rules;

import dev.usher.config.Redirect;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.util.ArrayList;
import java.util.List;

/**
 * A site's {@code redirect:}. The target is split once into literal text and placeholders: {@code {uri}} (path and
 * query as received), {@code {path}}, {@code {query}} (without the {@code ?}), {@code {host}} (Host without its
 * port) and {@code {scheme}}. Any other text in braces is kept as written. The answer has an empty body.
 * Request text that may not appear raw in a Location (controls, spaces, bytes above 0x7E) is percent-encoded, so a
 * strange request can never make the header invalid.
 */
final class RedirectAnswer {
    private enum Part { URI, PATH, QUERY, HOST, SCHEME }

    /** Each element is a literal String or a {@link Part}. */
    private final Object[] parts;
    private final int literalLength;
    private final HttpResponseStatus status;

    RedirectAnswer(Redirect redirect) {
        List<Object> parts = new ArrayList<>();
        String target = redirect.target();
        int literal = 0;
        int from = 0;
        int i = 0;
        while (i < target.length()) {
            Part part = target.charAt(i) == '{' ? placeholder(target, i) : null;
            if (part == null) {
                i++;
                continue;
            }
            if (i > from) {
                String text = HeaderText.locationLiteral(target.substring(from, i));
                parts.add(text);
                literal += text.length();
            }
            parts.add(part);
            i = target.indexOf('}', i) + 1;
            from = i;
        }
        if (from < target.length()) {
            String text = HeaderText.locationLiteral(target.substring(from));
            parts.add(text);
            literal += text.length();
        }
        this.parts = parts.toArray();
        this.literalLength = literal;
        this.status = HttpResponseStatus.valueOf(redirect.status());
    }

    FullHttpResponse response(HttpRequest request, String scheme, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
        response.headers()
                .set(HttpHeaderNames.LOCATION, location(request, scheme))
                .set(HttpHeaderNames.CONTENT_LENGTH, 0);
        LocalAnswers.closeUnlessKeepAlive(response, keepAlive);
        return response;
    }

    String location(HttpRequest request, String scheme) {
        String uri = originForm(request.uri());
        int queryAt = uri.indexOf('?');
        StringBuilder location = new StringBuilder(literalLength + uri.length() + 32);
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] instanceof String text) {
                location.append(text);
                continue;
            }
            String value = switch ((Part) parts[i]) {
                case URI -> uri;
                case PATH -> queryAt < 0 ? uri : uri.substring(0, queryAt);
                case QUERY -> queryAt < 0 ? "" : uri.substring(queryAt + 1);
                case HOST -> host(request.headers().get(HttpHeaderNames.HOST));
                case SCHEME -> scheme;
            };
            if (i == 0 && (parts[i] == Part.URI || parts[i] == Part.PATH)) {
                // A target that starts with the path must stay on this host: "//evil.example/x" would be read as
                // another host by the browser, so leading slashes are folded into one.
                value = singleLeadingSlash(value);
            }
            HeaderText.appendForLocation(location, value);
        }
        return location.toString();
    }

    private static Part placeholder(String target, int open) {
        for (Part part : Part.values()) {
            String name = part.name();
            int end = open + 1 + name.length();
            if (end < target.length() && target.charAt(end) == '}'
                    && target.regionMatches(true, open + 1, name, 0, name.length())) {
                return part;
            }
        }
        return null;
    }

    /** The path and query of an absolute-form request target ({@code http://host/p?q} → {@code /p?q}). */
    private static String originForm(String uri) {
        if (uri.isEmpty() || uri.charAt(0) == '/') {
            return uri;
        }
        int scheme = uri.indexOf("://");
        if (scheme < 0) {
            return uri;
        }
        int path = scheme + 3;
        while (path < uri.length() && uri.charAt(path) != '/' && uri.charAt(path) != '?') {
            path++;
        }
        String rest = uri.substring(path);
        return rest.isEmpty() || rest.charAt(0) == '?' ? "/" + rest : rest;
    }

    /** Host without its port: {@code example.com:8443} → {@code example.com}, {@code [::1]:8443} → {@code [::1]}. */
    static String host(String host) {
        if (host == null) {
            return "";
        }
        host = host.trim();
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            return close < 0 ? host : host.substring(0, close + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }

    private static String singleLeadingSlash(String value) {
        int i = 0;
        while (i < value.length() && (value.charAt(i) == '/' || value.charAt(i) == '\\')) {
            i++;
        }
        return i <= 1 ? value : "/" + value.substring(i);
    }
}
