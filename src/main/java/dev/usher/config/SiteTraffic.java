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
 * @param files            serve every request from this folder ({@code root:}), or null
 * @param forwardAuth      ask this auth server before serving each request ({@code forward_auth:}), or null
 * @param maintenance      answer 503 with a page while in maintenance ({@code maintenance:}), or null
 * @param errorPages       pages for Usher's own error answers ({@code error_pages:}, the top-level ones included)
 * @param waitForBackend   hold requests while every backend is down ({@code wait_for_backend:}), or null
 */
public record SiteTraffic(boolean compress, Balancing balancing, List<HeaderRule> requestHeaders,
                          List<HeaderRule> responseHeaders, boolean securityHeaders, Redirect redirect,
                          FixedAnswer respond, Access access, RateLimit rateLimit, Duration readTimeout,
                          Duration writeTimeout, Duration websocketIdle, Duration keepAliveIdle, StaticRoot files,
                          ForwardAuth forwardAuth, Maintenance maintenance, ErrorPageSet errorPages,
                          BackendWait waitForBackend) {
    /** Compression on, round robin, no edits, open access, no rate limit, 60 s read/write, 1 h websocket idle,
     *  60 s keep-alive idle. */
    public static final SiteTraffic DEFAULTS = new SiteTraffic(true, Balancing.DEFAULTS, List.of(), List.of(), false,
            null, null, Access.OPEN, null, Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofHours(1),
            Timeouts.DEFAULTS.idle());

    public SiteTraffic {
        requestHeaders = List.copyOf(requestHeaders);
        responseHeaders = List.copyOf(responseHeaders);
        errorPages = errorPages == null ? ErrorPageSet.NONE : errorPages;
    }

    /** Options without the self-hosting ones (root, forward auth, maintenance, error pages, waiting). */
    public SiteTraffic(boolean compress, Balancing balancing, List<HeaderRule> requestHeaders,
                       List<HeaderRule> responseHeaders, boolean securityHeaders, Redirect redirect,
                       FixedAnswer respond, Access access, RateLimit rateLimit, Duration readTimeout,
                       Duration writeTimeout, Duration websocketIdle, Duration keepAliveIdle) {
        this(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect, respond, access,
                rateLimit, readTimeout, writeTimeout, websocketIdle, keepAliveIdle, null, null, null,
                ErrorPageSet.NONE, null);
    }

    /** These options with another keep-alive idle timeout (a short-form site takes the top-level one). */
    public SiteTraffic withKeepAliveIdle(Duration idle) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect,
                respond, access, rateLimit, readTimeout, writeTimeout, websocketIdle, idle, files, forwardAuth,
                maintenance, errorPages, waitForBackend);
    }

    /** These options with other body-read, write, websocket-idle and keep-alive-idle timeouts. */
    public SiteTraffic withTimeouts(Duration read, Duration write, Duration websocket, Duration idle) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect,
                respond, access, rateLimit, read, write, websocket, idle, files, forwardAuth, maintenance, errorPages,
                waitForBackend);
    }

    /** These options without a folder, redirect or fixed answer: for a path that says itself what serves it. */
    public SiteTraffic withoutAnswers() {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, null, null,
                access, rateLimit, readTimeout, writeTimeout, websocketIdle, keepAliveIdle, null, forwardAuth,
                maintenance, errorPages, waitForBackend);
    }

    /** These options with another redirect. */
    public SiteTraffic withRedirect(Redirect target) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, target,
                respond, access, rateLimit, readTimeout, writeTimeout, websocketIdle, keepAliveIdle, files,
                forwardAuth, maintenance, errorPages, waitForBackend);
    }

    /** These options with other error pages (a site without its own takes the top-level ones). */
    public SiteTraffic withErrorPages(ErrorPageSet pages) {
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, securityHeaders, redirect,
                respond, access, rateLimit, readTimeout, writeTimeout, websocketIdle, keepAliveIdle, files,
                forwardAuth, maintenance, pages, waitForBackend);
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
