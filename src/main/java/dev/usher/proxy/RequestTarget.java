package dev.usher.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

import java.util.Iterator;

/**
 * Which host a request is for (RFC 9112 §3.2-3.3): the authority of an absolute-form URI when there is one (the URI
 * is then rewritten to origin form and Host set to match), otherwise the single Host header.
 */
final class RequestTarget {
    private RequestTarget() {
    }

    /**
     * The host the request names, possibly with a port, or null when the request must get a 400: several Host
     * headers, an HTTP/1.1 request without one, an empty one, or an absolute URI that is not http(s).
     */
    static String resolveHost(HttpRequest request) {
        HttpHeaders headers = request.headers();
        String uri = request.uri();
        if (!uri.isEmpty() && uri.charAt(0) != '/' && !uri.equals("*")) {
            return fromAbsoluteUri(request, uri);
        }
        // An iterator rather than getAll: no list copied per request just to see that there is exactly one.
        Iterator<? extends CharSequence> hosts = headers.valueCharSequenceIterator(HttpHeaderNames.HOST);
        if (!hosts.hasNext()) {
            // HTTP/1.0 may omit Host; it then matches no site and gets a 404 rather than a 400.
            return request.protocolVersion().equals(HttpVersion.HTTP_1_0) ? "" : null;
        }
        String host = hosts.next().toString().trim();
        if (hosts.hasNext()) {
            return null;
        }
        return validAuthority(host) ? host : null;
    }

    /**
     * True for {@code name}, {@code name:port}, {@code 192.0.2.1:80} or {@code [2001:db8::1]:80}, where a name has
     * only letters, digits, dots, hyphens and underscores and a port only digits. Anything else — userinfo, a
     * second host after a comma, spaces — is refused rather than forwarded: a backend that parses Host its own way
     * must not find a name in it that Usher did not route by.
     */
    static boolean validAuthority(String authority) {
        int end = authority.length();
        int i = 0;
        if (end == 0) {
            return false;
        }
        if (authority.charAt(0) == '[') {
            int close = authority.indexOf(']');
            if (close < 2) {
                return false;
            }
            for (i = 1; i < close; i++) {
                char c = authority.charAt(i);
                if (!(isHex(c) || c == ':' || c == '.')) {
                    return false;
                }
            }
            i = close + 1;
        } else {
            for (; i < end && authority.charAt(i) != ':'; i++) {
                char c = authority.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
                        || c == '_')) {
                    return false;
                }
            }
            if (i == 0) {
                return false;
            }
        }
        if (i == end) {
            return true;
        }
        if (authority.charAt(i) != ':' || end - i - 1 > 5) {
            return false;
        }
        for (i++; i < end; i++) {
            char c = authority.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static String fromAbsoluteUri(HttpRequest request, String uri) {
        int schemeEnd = uri.indexOf("://");
        if (schemeEnd <= 0) {
            return null;
        }
        String scheme = uri.substring(0, schemeEnd);
        if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
            return null;
        }
        int authorityStart = schemeEnd + 3;
        int pathStart = authorityStart;
        while (pathStart < uri.length() && "/?#".indexOf(uri.charAt(pathStart)) < 0) {
            pathStart++;
        }
        String authority = uri.substring(authorityStart, pathStart);
        if (!validAuthority(authority)) {
            return null;
        }
        String rest = uri.substring(pathStart);
        request.setUri(rest.isEmpty() || rest.charAt(0) != '/' ? "/" + rest : rest);
        request.headers().set(HttpHeaderNames.HOST, authority);
        return authority;
    }
}
