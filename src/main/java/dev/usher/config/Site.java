package dev.usher.config;

import java.time.Duration;
import java.util.List;

/**
 * One site: a host name (or a one-label wildcard) and the backends it forwards to, or the folder it serves, or the
 * redirect or fixed answer it gives instead ({@link #serves()}), with its effective options (the global defaults
 * already applied).
 *
 * @param name            lower-case host name as written, without scheme: {@code app.example.com},
 *                        {@code *.dev.example.com}, {@code localhost}, {@code 127.0.0.1}
 * @param plainHttp       true when written with {@code http://}: served over plain HTTP only
 * @param upstreams       the backends, in file order: one or more for a site that forwards, none for a site that
 *                        serves a folder ({@code traffic.files()}), redirects ({@code traffic.redirect()}) or
 *                        answers itself ({@code traffic.respond()})
 * @param maxBody         largest request body in bytes, 0 for no limit
 * @param connectTimeout  time to connect to a backend
 * @param responseTimeout time to wait for a backend's response head and between its bytes
 * @param line            1-based line of the site's key in the file (0 when not from a file)
 * @param column          1-based column of the site's key in the file
 * @param traffic         compression, balancing, header edits, redirects, access control, rate limits
 * @param tls             where its certificate comes from; {@link TlsPolicy#NONE} for a plain-HTTP site
 * @param accessLog       whether its requests go to the access log: its own {@code access_log:} or else the top-level
 *                        one
 * @param paths           its {@code paths:} in file order, each with the site as that path sees it; empty for most
 *                        sites (the route lookup then never looks at the path)
 * @param proxyProtocol   for a passthrough site ({@link TlsPolicy#PASSTHROUGH}): the PROXY protocol header each
 *                        backend connection starts with; {@link ProxyProtocol#OFF} for every other site
 */
public record Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                   Duration connectTimeout, Duration responseTimeout, int line, int column, SiteTraffic traffic,
                   TlsPolicy tls, boolean accessLog, List<SitePath> paths, ProxyProtocol proxyProtocol) {
    public Site {
        upstreams = List.copyOf(upstreams);
        paths = List.copyOf(paths);
    }

    /** A site without paths. */
    public Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                Duration connectTimeout, Duration responseTimeout, int line, int column, SiteTraffic traffic,
                TlsPolicy tls, boolean accessLog) {
        this(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic, tls,
                accessLog, List.of(), ProxyProtocol.OFF);
    }

    /** A site with paths that sends backends no PROXY protocol header (every site but a passthrough one). */
    public Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                Duration connectTimeout, Duration responseTimeout, int line, int column, SiteTraffic traffic,
                TlsPolicy tls, boolean accessLog, List<SitePath> paths) {
        this(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic, tls,
                accessLog, paths, ProxyProtocol.OFF);
    }

    /** A site without paths: a passthrough site, with the PROXY protocol header its backends get. */
    public Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                Duration connectTimeout, Duration responseTimeout, int line, int column, SiteTraffic traffic,
                TlsPolicy tls, boolean accessLog, ProxyProtocol proxyProtocol) {
        this(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic, tls,
                accessLog, List.of(), proxyProtocol);
    }

    /** A site whose requests are not logged. */
    public Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                Duration connectTimeout, Duration responseTimeout, int line, int column, SiteTraffic traffic,
                TlsPolicy tls) {
        this(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic, tls, false);
    }

    /** A site with {@code tls: auto} (or none for {@code http://}). */
    public Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                Duration connectTimeout, Duration responseTimeout, int line, int column, SiteTraffic traffic) {
        this(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic,
                plainHttp ? TlsPolicy.NONE : TlsPolicy.auto(name));
    }

    /** A site with the default traffic options. */
    public Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                Duration connectTimeout, Duration responseTimeout, int line, int column) {
        this(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, SiteTraffic.DEFAULTS);
    }

    /** True when the site is served over HTTPS (and its plain-HTTP requests are redirected there). */
    public boolean https() {
        return tls.https();
    }

    /** This site with another certificate policy. */
    public Site withTls(TlsPolicy policy) {
        return new Site(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic,
                policy, accessLog, paths, proxyProtocol);
    }

    /** This site with its requests logged or not. */
    public Site withAccessLog(boolean on) {
        return new Site(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, line, column, traffic,
                tls, on, paths, proxyProtocol);
    }

    /** This site with other backends and no position (a container label has no line). */
    public Site withUpstreams(List<UpstreamAddress> backends) {
        return new Site(name, plainHttp, backends, maxBody, connectTimeout, responseTimeout, 0, 0, traffic, tls,
                accessLog, paths, proxyProtocol);
    }

    /** This site at line 0, column 0: moving it in the file changes nothing else. */
    public Site withoutPosition() {
        return new Site(name, plainHttp, upstreams, maxBody, connectTimeout, responseTimeout, 0, 0, traffic, tls,
                accessLog, paths, proxyProtocol);
    }

    /** What answers its requests (those of no path, when it has paths). */
    public Serves serves() {
        if (!upstreams.isEmpty()) {
            return new Serves.Backends(upstreams);
        }
        if (traffic.redirect() != null) {
            return new Serves.RedirectTo(traffic.redirect());
        }
        if (traffic.respond() != null) {
            return new Serves.Answer(traffic.respond());
        }
        if (traffic.files() != null) {
            return new Serves.Files(traffic.files());
        }
        return Serves.NOTHING;
    }

    /** True when the site has {@code paths:}. */
    public boolean hasPaths() {
        return !paths.isEmpty();
    }

    /** True when the site forwards requests to backends; false when it serves files, redirects or answers itself. */
    public boolean forwards() {
        return !upstreams.isEmpty();
    }

    /** True when the site's TLS connections are relayed unopened to its backend ({@code passthrough: true}). */
    public boolean passthrough() {
        return tls.kind() == TlsPolicy.Kind.PASSTHROUGH;
    }

    /** True for a {@code *.example.com} name, which matches exactly one label in place of the star. */
    public boolean wildcard() {
        return name.startsWith("*.");
    }
}
