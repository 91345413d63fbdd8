package dev.usher.rules;

import dev.usher.config.ForwardAuth;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One site's {@code forward_auth:}, compiled: the question sent to the auth server for a request, and what its
 * answer means. The question is a GET of the configured URI carrying the client's headers (its cookies and
 * {@code Authorization} above all) and what the request was: {@code X-Forwarded-Method}, {@code -Proto},
 * {@code -Host}, {@code -Uri} and {@code -For} as Authelia's forward-auth endpoint and Authentik's outpost read them
 * (plus {@code X-Original-URL} and {@code X-Original-Method}, which other servers read). Usher sets these itself:
 * whatever the client sent under those names is dropped, and {@code -For} is the client address as Usher worked it
 * out (trusting only {@code trusted_proxies}).
 *
 * <p>A 2xx lets the request through with the {@code copy_headers} of the answer set on it. Before that, and whatever
 * the answer holds, the client's own copies of every {@code copy_headers} name are removed (a client must never be
 * able to claim {@code Remote-User: admin}; Caddy had exactly this hole, GHSA-7r4p-vjf4-gxv4). Any other answer goes
 * back to the client as the auth server gave it, body included: a redirect to the login portal, a 401, a 403.
 *
 * <p>Threading: immutable; called on event loops.
 */
final class ForwardAuthCheck {

    private static final Set<String> NOT_FORWARDED = Set.of("connection", "keep-alive", "proxy-connection", "te",
            "trailer", "transfer-encoding", "upgrade", "content-length", "content-type", "expect", "host",
            "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-method",
            "x-forwarded-uri", "x-forwarded-port", "x-forwarded-prefix", "x-forwarded-server", "x-real-ip",
            "x-original-url", "x-original-method", "x-original-uri", "http2-settings");
    private static final Set<String> NOT_RETURNED = Set.of("connection", "keep-alive", "proxy-connection", "te",
            "trailer", "transfer-encoding", "upgrade", "content-length");
    private static final AsciiString X_FORWARDED_METHOD = AsciiString.cached("x-forwarded-method");
    private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
    private static final AsciiString X_FORWARDED_HOST = AsciiString.cached("x-forwarded-host");
    private static final AsciiString X_FORWARDED_URI = AsciiString.cached("x-forwarded-uri");
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    private static final AsciiString X_REAL_IP = AsciiString.cached("x-real-ip");
    private static final AsciiString X_ORIGINAL_URL = AsciiString.cached("x-original-url");
    private static final AsciiString X_ORIGINAL_METHOD = AsciiString.cached("x-original-method");

    private final ForwardAuth settings;
    private final AuthServer server;
    private final String authority;
    /** The copy_headers names, lower-case, as the set of names a client may never send itself. */
    private final Set<String> copied;

    ForwardAuthCheck(ForwardAuth settings, AuthServer server) {
        this.settings = settings;
        this.server = server;
        this.authority = settings.server().authority();
        Set<String> names = new java.util.HashSet<>();
        for (String name : settings.copyHeaders()) {
            names.add(name.toLowerCase(Locale.ROOT));
        }
        this.copied = Set.copyOf(names);
    }

    AuthServer server() {
        return server;
    }

    /** True for a request the auth server answers itself, unchecked (Authentik's outpost path). */
    boolean outpost(HttpRequest request) {
        String prefix = settings.outpostPath();
        return prefix != null && request.uri().startsWith(prefix);
    }

    /** Removes the client's own copies of every copy_headers name. */
    void strip(HttpHeaders headers) {
        for (String name : settings.copyHeaders()) {
            headers.remove(name);
        }
    }

    /** The question for {@code request}, from a client at {@code clientIp} over {@code scheme}. */
    FullHttpRequest question(HttpRequest request, String clientIp, String scheme) {
        FullHttpRequest ask = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, settings.uri(),
                Unpooled.EMPTY_BUFFER);
        HttpHeaders from = request.headers();
        HttpHeaders to = ask.headers();
        Set<String> named = connectionTokens(from);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> header = it.next();
            String name = header.getKey().toString().toLowerCase(Locale.ROOT);
            if (!NOT_FORWARDED.contains(name) && !copied.contains(name) && !named.contains(name)) {
                to.add(header.getKey(), header.getValue());
            }
        }
        String host = from.get(HttpHeaderNames.HOST, "");
        String uri = originForm(request.uri());
        to.set(HttpHeaderNames.HOST, authority)
                .set(X_FORWARDED_METHOD, request.method().name())
                .set(X_FORWARDED_PROTO, scheme)
                .set(X_FORWARDED_HOST, host)
                .set(X_FORWARDED_URI, uri)
                .set(X_FORWARDED_FOR, clientIp)
                .set(X_REAL_IP, clientIp)
                .set(X_ORIGINAL_URL, scheme + "://" + host + uri)
                .set(X_ORIGINAL_METHOD, request.method().name());
        return ask;
    }

    /**
     * What the auth server's {@code answer} (released here) means for {@code request}: null to let it through,
     * after the copy_headers were set on it; otherwise the answer for the client.
     */
    FullHttpResponse verdict(FullHttpResponse answer, HttpRequest request, boolean keepAlive) {
        try {
            HttpHeaders headers = request.headers();
            strip(headers);
            if (answer.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.SUCCESS) {
                for (String name : settings.copyHeaders()) {
                    List<String> values = answer.headers().getAll(name);
                    for (String value : values) {
                        headers.add(name, value);
                    }
                }
                return null;
            }
            return toClient(answer, keepAlive);
        } finally {
            answer.release();
        }
    }

    /** The auth server's refusal as the client gets it: status, headers and body, re-framed. */
    private static FullHttpResponse toClient(FullHttpResponse answer, boolean keepAlive) {
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, answer.status(),
                answer.content().retainedDuplicate());
        Set<String> named = connectionTokens(answer.headers());
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = answer.headers().iteratorCharSequence();
             it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> header = it.next();
            String name = header.getKey().toString().toLowerCase(Locale.ROOT);
            if (!NOT_RETURNED.contains(name) && !named.contains(name)) {
                out.headers().add(header.getKey(), header.getValue());
            }
        }
        out.headers().set(HttpHeaderNames.CONTENT_LENGTH, out.content().readableBytes());
        LocalAnswers.closeUnlessKeepAlive(out, keepAlive);
        return out;
    }

    /** Header names listed in Connection, lower-case: hop-by-hop for this message. */
    private static Set<String> connectionTokens(HttpHeaders headers) {
        if (!headers.contains(HttpHeaderNames.CONNECTION)) {
            return Set.of();
        }
        List<String> names = new ArrayList<>();
        for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : value.split(",")) {
                String t = token.strip().toLowerCase(Locale.ROOT);
                if (!t.isEmpty()) {
                    names.add(t);
                }
            }
        }
        return Set.copyOf(new java.util.HashSet<>(names));
    }

    /** The path and query of a request target (an absolute-form one loses its scheme and authority). */
    private static String originForm(String uri) {
        int scheme = uri.indexOf("://");
        if (scheme > 0 && scheme < 8 && !uri.startsWith("/")) {
            int slash = uri.indexOf('/', scheme + 3);
            return slash < 0 ? "/" : uri.substring(slash);
        }
        return uri;
    }
}
