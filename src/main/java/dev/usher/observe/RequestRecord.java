package dev.usher.observe;

import dev.usher.config.Site;
import dev.usher.config.UpstreamAddress;

/**
 * One request, once it ended: what the access log writes and the metrics count. Made on the event loop from fields
 * already at hand (no formatting there); formatted, if at all, on the access log's own thread.
 *
 * @param startMillis    wall-clock time the request head arrived, in epoch milliseconds
 * @param client         the client's IP address (the TCP peer), or "" when unknown
 * @param host           the Host (or {@code :authority}) the request named, or null when it had none
 * @param method         the request method
 * @param uri            the request target as sent
 * @param protocol       h1 or h2 (h3 later)
 * @param status         the status of the response sent, or 0 when none was (the connection or stream ended first)
 * @param bytesIn        request body bytes received
 * @param bytesOut       response body bytes sent (after compression)
 * @param durationNanos  from the request head's arrival to the last response byte handed to the connection (or the
 *                       end of the connection or stream)
 * @param upstream       the backend that served it (the last one tried), or null when answered by Usher itself
 * @param upstreamNanos  from the first attempt to reach a backend to its response head, or -1 when none came
 * @param tls            the TLS version (such as {@code TLSv1.3}), or null over plain HTTP
 * @param site           the site that took the request, or null when it matched none
 * @param route          the pattern of the site's {@code paths:} entry that served it ({@code /api/}), or null for
 *                       the site's own route
 */
record RequestRecord(long startMillis, String client, String host, String method, String uri,
                            Protocol protocol, int status, long bytesIn, long bytesOut, long durationNanos,
                            UpstreamAddress upstream, long upstreamNanos, String tls, Site site, String route) {
    /** The site's name, or null when the request matched no site. */
    public String siteName() {
        return site == null ? null : site.name();
    }
}
