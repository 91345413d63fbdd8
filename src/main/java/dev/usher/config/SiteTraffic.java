package dev.usher.config;

import java.time.Duration;
import java.util.List;

/**
 * A site's traffic options beyond routing (the long form's optional keys), with defaults applied.
 *
 * @param compress         compress responses for clients that accept it ({@code gzip: false} turns it off)
 * @param balancing        backend choice and health
 * @param requestHeaders   edits to the request before it goes to the backend ({@code request_headers:})
 * @param responseHeaders  edits to the response before it goes to the client ({@code headers:})
 * @param securityHeaders  add HSTS (HTTPS sites only), nosniff, frame options and referrer policy
 * @param redirect         answer every request with this redirect, or null
 * @param respond          answer every request with this fixed answer, or null
 * @param access           IP allow/deny lists and basic auth
 * @param rateLimit        per-client-IP token bucket, or null for none
 * @param readTimeout      the longest pause between two reads of a request body from the client
 * @param writeTimeout     the longest a response may stall because the client does not read
 * @param websocketIdle    a websocket (or other upgraded connection) with no traffic either way is closed after this
 * @param keepAliveIdle    after a response from this site, the client connection may wait this long for its next
 *                         request (the top-level {@code timeouts.idle} unless the site sets its own)
 */
public record SiteTraffic(boolean compress, Balancing balancing, List<HeaderRule> requestHeaders,
                          List<HeaderRule> responseHeaders, boolean securityHeaders, Redirect redirect,
                          FixedAnswer respond, Access access, RateLimit rateLimit, Duration readTimeout,
                          Duration writeTimeout, Duration websocketIdle, Duration keepAliveIdle) {
    /** Compression on, round robin, no edits, open access, no rate limit, 60 s read/write, 1 h websocket idle,
     *  60 s keep-alive idle. */
    public static final SiteTraffic DEFAULTS = new SiteTraffic(true, Balancing.DEFAULTS, List.of(), List.of(), false,
            null, null, Access.OPEN, null, Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofHours(1),
            Timeouts.DEFAULTS.idle());

    public SiteTraffic {
        requestHeaders = List.copyOf(requestHeaders);
        responseHeaders = List.copyOf(responseHeaders);
    }

    /** These options with another keep-alive idle timeout (a short-form site takes the top-level one). */
    public SiteTraffic withKeepAliveIdle(Duration idle) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect,
                respond, access, rateLimit, readTimeout, writeTimeout, websocketIdle, idle);
    }

    /** These options with other body-read, write, websocket-idle and keep-alive-idle timeouts. */
    public SiteTraffic withTimeouts(Duration read, Duration write, Duration websocket, Duration idle) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect,
                respond, access, rateLimit, read, write, websocket, idle);
    }

    /** These options without a redirect or fixed answer: for a path that says itself what serves it. */
    public SiteTraffic withoutAnswers() {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, null, null,
                access, rateLimit, readTimeout, writeTimeout, websocketIdle, keepAliveIdle);
    }

    /** These options with another redirect. */
    public SiteTraffic withRedirect(Redirect target) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, target,
                respond, access, rateLimit, readTimeout, writeTimeout, websocketIdle, keepAliveIdle);
    }

    /** Options with the default keep-alive idle timeout. */
    public SiteTraffic(boolean compress, Balancing balancing, List<HeaderRule> requestHeaders,
                       List<HeaderRule> responseHeaders, boolean securityHeaders, Redirect redirect,
                       FixedAnswer respond, Access access, RateLimit rateLimit, Duration readTimeout,
                       Duration writeTimeout, Duration websocketIdle) {
        this(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect, respond, access,
                rateLimit, readTimeout, writeTimeout, websocketIdle, Timeouts.DEFAULTS.idle());
    }
}
