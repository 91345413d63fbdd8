package dev.usher.proxy;

import dev.usher.observe.RequestRecorder;
import dev.usher.observe.RequestTrace;
import dev.usher.config.Cidr;
import dev.usher.route.PathRoute;
import dev.usher.route.RequestPaths;
import dev.usher.config.ErrorPageSet;
import dev.usher.config.Serves;
import dev.usher.route.Route;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.SiteRules;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.Future;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * The per-request part of serving, shared by HTTP/1.1, HTTP/2 and HTTP/3: once a protocol handler has checked a
 * request head by its own rules and knows the host, this routes it (404 for an unknown host), applies the site's
 * body limit and rules (local answers; basic auth and forward auth off the event loop), and starts what the site
 * serves with ({@link dev.usher.config.Serving}): a {@link ProxyExchange} to its backends (after rewriting the head:
 * hop-by-hop headers out, forwarding headers and edits in) or a {@link FileExchange} from its folder.
 *
 * <p>One instance per HTTP/1.1 connection or per HTTP/2 stream. Threading: the client channel's event loop only.
 */
final class RequestDispatch {
    private final RouteTableHolder routes;
    private final String scheme;
    private final ClientSide side;
    private final ChannelHandlerContext ctx;
    private final InetAddress peer;
    private final String peerIp;
    /** The access log and metrics' view of the channel's requests, or null when nothing observes them. */
    private final RequestRecorder recorder;

    /**
     * @param scheme {@code http} or {@code https}: what the client used, for {@code X-Forwarded-Proto}
     * @param remote the client's TCP address (for HTTP/2, the connection's, not the stream's)
     */
    RequestDispatch(RouteTableHolder routes, String scheme, ClientSide side, ChannelHandlerContext ctx,
                    SocketAddress remote) {
        this.routes = routes;
        this.scheme = scheme;
        this.side = side;
        this.ctx = ctx;
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            peer = inet.getAddress();
            peerIp = peer.getHostAddress();
        } else {
            peer = null;
            peerIp = "";
        }
        recorder = ctx.pipeline().get(RequestRecorder.NAME) instanceof RequestRecorder r ? r : null;
    }

    boolean isHttps() {
        return "https".equals(scheme);
    }

    /**
     * Routes {@code request} and answers it locally or starts its exchange (announced through
     * {@link ClientSide#exchangeStarted} before it starts).
     *
     * @param host  the host the request names, already validated
     * @param shape how the client framed it (keep-alive, HTTP/1.0, a body, an upgrade)
     */
    void dispatch(HttpRequest request, String host, RequestShape shape) {
        boolean keepAlive = shape.keepAlive();
        boolean hasBody = shape.hasBody();
        RouteTable table = routes.get();
        Route route = table.lookup(host);
        RequestTrace trace = recorder == null ? null : recorder.current();
        if (route == null) {
            // Never forwarded anywhere: an unknown name (or another host in an absolute URI) is not ours to serve.
            respond(HttpResponseStatus.NOT_FOUND, hasBody || !keepAlive);
            return;
        }
        if (route.paths() != null) {
            route = pathRoute(route, request, hasBody || !keepAlive, trace);
            if (route == null) {
                return; // answered: a path with no normal form, or the slash a prefix needs
            }
        }
        if (trace != null) {
            trace.site(route.site());
        }
        ErrorPageSet pages = route.site().traffic().errorPages();
        long maxBody = route.site().maxBody();
        if (maxBody > 0 && HttpUtil.getContentLength(request, 0L) > maxBody) {
            side.respond(ErrorPages.response(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, true, pages), true);
            return;
        }
        SiteRules rules = route.rules();
        ctx.channel().attr(Http1ProxyHandler.COMPRESS).set(rules.compress());
        InetAddress client = peer == null ? null : rules.clientAddress(peer, request.headers());
        boolean peerTrusted = peer != null && trusted(peer, table.config().trustedProxies());
        // Only a site with basic auth or forward auth may have to wait for a verdict; every other one is checked
        // inline, without a future per request.
        Future<FullHttpResponse> verdict = rules.needsAsync()
                ? rules.checkAsync(request, client, scheme, keepAlive && !hasBody, ctx.executor())
                : null;
        FullHttpResponse answer = verdict == null ? rules.check(request, client, scheme, keepAlive && !hasBody)
                : verdict.isDone() ? verdict.getNow() : null;
        if (answer != null) {
            rules.editResponse(answer.headers(), isHttps());
            side.respond(answer, hasBody || !keepAlive);
            return;
        }
        Route chosen = route; // final, for the verdict's listener
        Exchange started = exchangeFor(route, request, client, shape, trace);
        if (started == null) {
            // A site made only of paths answers what none of them matches with a 404.
            HttpResponseStatus status = route.site().serves() instanceof Serves.Nothing
                    ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.BAD_GATEWAY;
            side.respond(ErrorPages.response(status, hasBody || !keepAlive, pages),
                    hasBody || !keepAlive);
            return;
        }
        side.exchangeStarted(started);
        if (verdict == null || verdict.isDone()) {
            begin(started, request, chosen, client, peerTrusted, shape.upgrade());
        } else {
            // A password or the auth server being asked off the event loop: the exchange waits (its body, if any,
            // queues up), and the request stays as the client sent it until the verdict (a redirect is built from
            // it, and forward auth sets the headers it copies on it).
            verdict.addListener(f -> {
                FullHttpResponse later = verdict.getNow();
                if (later != null) {
                    rules.editResponse(later.headers(), isHttps());
                    started.reject(later);
                } else if (!f.isSuccess()) {
                    started.reject(ErrorPages.response(HttpResponseStatus.SERVICE_UNAVAILABLE, true, pages));
                } else {
                    begin(started, request, chosen, client, peerTrusted, shape.upgrade());
                }
            });
        }
    }

    /**
     * The route of the site's {@code paths:} entry the request's path matches (longest first), or the site's own
     * when none does; the request's target becomes its normal form, rewritten as the entry says. Null when the
     * request was answered here: a 400 for a path with no normal form, a 308 to {@code /api/} for {@code /api}.
     */
    private Route pathRoute(Route site, HttpRequest request, boolean close, RequestTrace trace) {
        String uri = request.uri();
        String normal = RequestPaths.normalize(uri);
        if (normal == null) {
            respond(HttpResponseStatus.BAD_REQUEST, true);
            return null;
        }
        String matched = RequestPaths.matchForm(normal);
        PathRoute hit = site.paths().find(matched);
        if (hit == null) {
            String withSlash = site.paths().slashRedirect(matched);
            if (withSlash != null) {
                FullHttpResponse moved = ErrorPages.response(HttpResponseStatus.PERMANENT_REDIRECT, close);
                moved.headers().set(HttpHeaderNames.LOCATION, withSlash);
                site.rules().editResponse(moved.headers(), isHttps());
                side.respond(moved, close);
                return null;
            }
            if (normal != uri) {
                request.setUri(normal);
            }
            return site;
        }
        if (trace != null) {
            trace.route(hit.pattern());
        }
        String target = hit.rewrite(normal, matched);
        if (target != uri) {
            request.setUri(target);
        }
        return hit.route();
    }

    /**
     * What answers the request once the rules let it through: the site's backends, its folder, or (for
     * Authentik's outpost path) its auth server; null when there is nothing to send it to.
     */
    private Exchange exchangeFor(Route route, HttpRequest request, InetAddress client, RequestShape shape,
                                 RequestTrace trace) {
        if (route.outpost() != null && route.rules().toAuthServer(request)) {
            return new ProxyExchange(side, ctx, route, route.outpost(), request, client, shape, trace);
        }
        return switch (route.site().serves()) {
            case Serves.Backends backends -> route.upstreams() == null ? null
                    : new ProxyExchange(side, ctx, route, route.upstreams(), request, client, shape, trace);
            case Serves.Files folder -> route.files() == null ? null
                    : new FileExchange(side, ctx, route, request, shape);
            // Redirects and fixed answers are the rules' own answers: reaching here means a rule let one through.
            case Serves.RedirectTo redirect -> null;
            case Serves.Answer fixed -> null;
            case Serves.Nothing nothing -> null;
        };
    }

    /** Starts {@code started}: a request for a backend gets its head rewritten first. */
    private void begin(Exchange started, HttpRequest request, Route route, InetAddress client,
                       boolean peerTrusted, boolean upgrade) {
        if (started instanceof ProxyExchange) {
            prepareForBackend(request, route, client, peerTrusted, upgrade);
        }
        started.start();
    }

    /**
     * Answers the current request locally with an error page (the server's own {@code error_pages:} when set);
     * closes after it when {@code close}.
     */
    void respond(HttpResponseStatus status, boolean close) {
        side.respond(ErrorPages.response(status, close, routes.get().config().errorPages()), close);
    }

    /**
     * Turns the client's request into the backend's: hop-by-hop headers out, forwarding headers and edits in.
     * Package-private for the JMH benchmark of the header work ({@code bench/jmh}).
     */
    void prepareForBackend(HttpRequest request, Route route, InetAddress client, boolean peerTrusted,
                                   boolean upgrade) {
        SiteRules rules = route.rules();
        HttpHeaders headers = request.headers();
        boolean chunked = HttpUtil.isTransferEncodingChunked(request);
        // TE is hop-by-hop, but "trailers" says the client takes trailers, which Usher passes on: gRPC servers want
        // to hear it (and HTTP/2 allows TE with that value only).
        boolean trailers = headers.contains(HttpHeaderNames.TE) && acceptsTrailers(headers);
        CharSequence upgradeTo = upgrade ? headers.get(HttpHeaderNames.UPGRADE) : null;
        HopByHop.strip(headers);
        if (chunked) {
            headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (upgradeTo != null) {
            headers.set(HttpHeaderNames.UPGRADE, upgradeTo);
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        }
        if (trailers) {
            headers.set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
        }
        // The client is usually the peer itself, whose text form is kept: no new String per request.
        String clientIp = client == null || client == peer ? peerIp : client.getHostAddress();
        ForwardedHeaders.apply(headers, clientIp, peerIp, peerTrusted,
                scheme, headers.get(HttpHeaderNames.HOST));
        String prefix = route.path() == null || !route.path().stripPrefix() ? null : route.path().strippedPart();
        if (prefix != null) {
            headers.set(ForwardedHeaders.X_FORWARDED_PREFIX, prefix);
        }
        rules.editRequest(headers);
        request.setProtocolVersion(HttpVersion.HTTP_1_1);
    }

    private static boolean acceptsTrailers(HttpHeaders headers) {
        for (String value : headers.getAll(HttpHeaderNames.TE)) {
            for (String token : value.split(",")) {
                int semi = token.indexOf(';');
                if ((semi < 0 ? token : token.substring(0, semi)).trim().equalsIgnoreCase("trailers")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean trusted(InetAddress address, List<Cidr> proxies) {
        for (int i = 0; i < proxies.size(); i++) {
            if (proxies.get(i).contains(address)) {
                return true;
            }
        }
        return false;
    }
}
