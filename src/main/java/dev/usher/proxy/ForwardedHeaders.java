package dev.usher.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

import java.util.List;

/**
 * Tells the backend who the client is. A client's own {@code X-Forwarded-*} values are a claim nobody checked:
 * they are replaced, unless the TCP peer is a trusted proxy ({@code trusted_proxies:}), whose chain is kept and
 * extended with the peer's address, as the next hop in a chain of proxies expects.
 */
final class ForwardedHeaders {
    static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
    static final AsciiString X_FORWARDED_HOST = AsciiString.cached("x-forwarded-host");
    static final AsciiString X_REAL_IP = AsciiString.cached("x-real-ip");
    static final AsciiString X_FORWARDED_PREFIX = AsciiString.cached("x-forwarded-prefix");
    /**
     * Other headers through which backends and frameworks learn the client's address, scheme, host or port (RFC 7239
     * Forwarded, Spring and Rails conventions, CDN headers). From a client that is not a trusted proxy they are
     * claims nobody checked, so they are dropped.
     */
    private static final List<AsciiString> CLAIMS = List.of(AsciiString.cached("forwarded"),
            AsciiString.cached("x-forwarded-port"), X_FORWARDED_PREFIX,
            AsciiString.cached("x-forwarded-server"), AsciiString.cached("x-forwarded-ssl"),
            AsciiString.cached("x-forwarded-scheme"), AsciiString.cached("x-client-ip"),
            AsciiString.cached("true-client-ip"), AsciiString.cached("cf-connecting-ip"),
            AsciiString.cached("x-cluster-client-ip"));

    private ForwardedHeaders() {
    }

    /**
     * @param clientIp    the client as Usher determined it (the peer, or from a trusted proxy's headers)
     * @param peerIp      the TCP peer
     * @param peerTrusted whether the peer is a trusted proxy
     * @param scheme      what the client used to reach Usher (or what a trusted proxy says it used)
     * @param host        the Host the client asked for
     */
    static void apply(HttpHeaders headers, String clientIp, String peerIp, boolean peerTrusted, String scheme,
                      String host) {
        if (!peerTrusted) {
            for (int i = 0; i < CLAIMS.size(); i++) {
                headers.remove(CLAIMS.get(i));
            }
        }
        String chain = peerTrusted ? headers.get(X_FORWARDED_FOR) : null;
        headers.set(X_FORWARDED_FOR, chain == null || chain.isBlank() ? peerIp : chain + ", " + peerIp);
        headers.set(X_REAL_IP, clientIp);
        String proto = peerTrusted ? headers.get(X_FORWARDED_PROTO) : null;
        headers.set(X_FORWARDED_PROTO, proto == null ? scheme : proto);
        String forwardedHost = peerTrusted ? headers.get(X_FORWARDED_HOST) : null;
        if (forwardedHost == null && host != null) {
            headers.set(X_FORWARDED_HOST, host);
        } else if (forwardedHost == null) {
            headers.remove(X_FORWARDED_HOST);
        }
    }
}
