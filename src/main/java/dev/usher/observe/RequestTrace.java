package dev.usher.observe;

import dev.usher.config.Site;
import dev.usher.config.UpstreamAddress;

/**
 * What is known so far of one request in flight, filled as it goes: the head by {@link RequestRecorder}, the site by
 * the dispatch, the backend by the exchange, the status and byte counts by the recorder again. Becomes a
 * {@link RequestRecord} when the request ends.
 *
 * <p>Threading: the client channel's event loop only.
 */
public final class RequestTrace {
    final long startMillis;
    final long startNanos;
    final String host;
    final String method;
    final String uri;
    int status;
    long bytesIn;
    long bytesOut;
    private Site site;
    private String route;
    private UpstreamAddress upstream;
    private long upstreamStart;
    private long upstreamNanos = -1;

    RequestTrace(long startMillis, long startNanos, String host, String method, String uri) {
        this.startMillis = startMillis;
        this.startNanos = startNanos;
        this.host = host;
        this.method = method;
        this.uri = uri;
    }

    /** The request was routed to {@code site}. */
    public void site(Site site) {
        this.site = site;
    }

    /** The request was served by the site's {@code paths:} entry {@code pattern}. */
    public void route(String pattern) {
        this.route = pattern;
    }

    /** An attempt at a backend begins: the first one starts the upstream clock. */
    public void upstream(UpstreamAddress backend) {
        if (upstream == null) {
            upstreamStart = System.nanoTime();
        }
        upstream = backend;
    }

    /** The backend's response head arrived. */
    public void upstreamAnswered() {
        if (upstream != null && upstreamNanos < 0) {
            upstreamNanos = System.nanoTime() - upstreamStart;
        }
    }

    RequestRecord end(long nowNanos, String client, Protocol protocol, String tls) {
        return new RequestRecord(startMillis, client, host, method, uri, protocol, status, bytesIn, bytesOut,
                nowNanos - startNanos, upstream, upstreamNanos, tls, site, route);
    }
}
