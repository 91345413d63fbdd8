package dev.usher.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

import java.util.List;

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
        List<String> hosts = headers.getAll(HttpHeaderNames.HOST);
        if (hosts.size() > 1) {
            return null;
        }
        if (hosts.isEmpty()) {
            // HTTP/1.0 may omit Host; it then matches no site and gets a 404 rather than a 400.
            return request.protocolVersion().equals(HttpVersion.HTTP_1_0) ? "" : null;
        }
        String host = hosts.get(0).trim();
        return host.isEmpty() ? null : host;
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
        if (authority.isEmpty() || authority.indexOf('@') >= 0) {
            return null;
        }
        String rest = uri.substring(pathStart);
        request.setUri(rest.isEmpty() || rest.charAt(0) != '/' ? "/" + rest : rest);
        request.headers().set(HttpHeaderNames.HOST, authority);
        return authority;
    }
}
