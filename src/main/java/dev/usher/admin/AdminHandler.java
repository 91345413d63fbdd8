package dev.usher.admin;

import dev.usher.cert.CertManager;
import dev.usher.cert.CertifiedKey;
import dev.usher.reload.ReloadResult;
import dev.usher.reload.Reloader;
import dev.usher.observe.Metrics;
import dev.usher.observe.PrometheusText;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The admin API's requests: {@code GET /health}, {@code GET /certificates}, {@code POST
 * /certificates/NAME/renew}, {@code POST /reload} (200 with what changed, or 422 with the config's errors),
 * {@code GET /metrics} (Prometheus text). Other answers are JSON. Requests whose Host is not a loopback name are
 * refused (a web page
 * cannot reach this endpoint through DNS rebinding), and so are browser requests from another origin (CSRF).
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String CERTIFICATES = "/certificates";
    private static final String RENEW = "/renew";

    private final Supplier<CertManager> certificateSource;
    private final Supplier<Reloader> reloader;
    private final Metrics metrics;
    private final AdminSecret secret;

    /**
     * Both suppliers may give null: no HTTPS served; not started from a config file. {@code metrics}: null for none
     * (404). {@code secret}: checks the token each request must carry when a secret is configured.
     */
    AdminHandler(Supplier<CertManager> certificates, Supplier<Reloader> reloader, Metrics metrics,
                 AdminSecret secret) {
        this.certificateSource = certificates;
        this.reloader = reloader;
        this.metrics = metrics;
        this.secret = secret;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String host = request.headers().get(HttpHeaderNames.HOST);
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        // A browser sends Origin with every POST: only a page served by this endpoint itself may write (any other
        // page, even one on localhost, is a cross-site request). Tools like usher renew send none.
        if (origin != null && !origin.equalsIgnoreCase("http://" + host) && !origin.equalsIgnoreCase("https://" + host)) {
            send(ctx, HttpResponseStatus.FORBIDDEN, Json.error("cross-site requests are refused"), keepAlive);
            return;
        }
        if (!secret.required()) {
            // Without a secret the endpoint is on loopback, and a page that rebinds its own name to 127.0.0.1 must
            // not reach it: only requests addressed to a loopback name are served.
            if (!LoopbackHosts.isLoopbackHost(host) || !fromLoopback(ctx)) {
                send(ctx, HttpResponseStatus.FORBIDDEN, Json.error("the admin endpoint answers only requests made "
                        + "to localhost"), keepAlive);
                return;
            }
            route(ctx, request, keepAlive);
            return;
        }
        request.retain();
        ctx.channel().config().setAutoRead(false);
        secret.check(request.headers().get(HttpHeaderNames.AUTHORIZATION)).whenComplete((ok, failure) ->
                ctx.executor().execute(() -> {
                    try {
                        ctx.channel().config().setAutoRead(true);
                        // Closed after this answer: a request pipelined behind it must not be answered first.
                        if (Boolean.TRUE.equals(ok)) {
                            route(ctx, request, false);
                        } else {
                            FullHttpResponse refused = response(HttpResponseStatus.UNAUTHORIZED,
                                    "application/json", (Json.error("this admin endpoint needs its secret: "
                                            + "Authorization: Bearer <secret>") + "\n")
                                            .getBytes(StandardCharsets.UTF_8), false);
                            refused.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"usher admin\"");
                            write(ctx, refused, false);
                        }
                    } finally {
                        request.release();
                    }
                }));
    }

    /**
     * True when the peer is on this machine. Checked besides the Host header because a connection accepted while an
     * earlier config had the endpoint on a public address (with a secret) outlives a reload that removed both.
     */
    private static boolean fromLoopback(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress peer
                && peer.getAddress() != null && peer.getAddress().isLoopbackAddress();
    }

    private void route(ChannelHandlerContext ctx, FullHttpRequest request, boolean keepAlive) {
        CertManager certificates = certificateSource.get(); // a reload may start HTTPS
        String path = request.uri();
        int query = path.indexOf('?');
        path = query < 0 ? path : path.substring(0, query);
        if (path.equals("/metrics") && metrics != null) {
            if (!request.method().equals(HttpMethod.GET)) {
                send(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, Json.error("use GET"), keepAlive);
            } else {
                send(ctx, HttpResponseStatus.OK, PrometheusText.CONTENT_TYPE,
                        metrics.scrape().getBytes(StandardCharsets.UTF_8), keepAlive);
            }
        } else if (path.equals("/health")) {
            requireMethod(ctx, request, HttpMethod.GET, "{\"status\":\"ok\"}");
        } else if (path.equals(CERTIFICATES)) {
            requireMethod(ctx, request, HttpMethod.GET, certificates == null ? "[]"
                    : Json.certificates(certificates.status()));
        } else if (path.startsWith(CERTIFICATES + "/") && path.endsWith(RENEW)
                && path.length() > CERTIFICATES.length() + 1 + RENEW.length()) {
            String name = URLDecoder.decode(path.substring(CERTIFICATES.length() + 1, path.length() - RENEW.length()),
                    StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
            renew(ctx, request, name, keepAlive, certificates);
        } else if (path.equals("/reload")) {
            reload(ctx, request, keepAlive);
        } else {
            send(ctx, HttpResponseStatus.NOT_FOUND, Json.error("no such admin resource: " + path), keepAlive);
        }
    }

    private void requireMethod(ChannelHandlerContext ctx, FullHttpRequest request, HttpMethod method, String body) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!request.method().equals(method)) {
            send(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, Json.error("use " + method), keepAlive);
        } else {
            send(ctx, HttpResponseStatus.OK, body, keepAlive);
        }
    }

    private static void renew(ChannelHandlerContext ctx, FullHttpRequest request, String name, boolean keepAlive,
                              CertManager certificates) {
        if (!request.method().equals(HttpMethod.POST)) {
            send(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, Json.error("use POST"), keepAlive);
            return;
        }
        if (certificates == null) {
            send(ctx, HttpResponseStatus.NOT_FOUND, Json.error("Usher serves no HTTPS site"), keepAlive);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        certificates.renew(name).whenComplete((CertifiedKey cert, Throwable failure) -> ctx.executor().execute(() -> {
            ctx.channel().config().setAutoRead(true);
            if (failure == null) {
                send(ctx, HttpResponseStatus.OK, Json.renewed(name, cert), keepAlive);
                return;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            HttpResponseStatus status = cause instanceof IllegalArgumentException
                    ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.BAD_GATEWAY;
            send(ctx, status, Json.error(String.valueOf(cause.getMessage())), keepAlive);
        }));
    }

    private void reload(ChannelHandlerContext ctx, FullHttpRequest request, boolean keepAlive) {
        if (!request.method().equals(HttpMethod.POST)) {
            send(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, Json.error("use POST"), keepAlive);
            return;
        }
        Reloader reloads = reloader.get();
        if (reloads == null) {
            send(ctx, HttpResponseStatus.CONFLICT, Json.error("this Usher was not started from a config file, so "
                    + "there is nothing to reload"), keepAlive);
            return;
        }
        // A reload binds listeners and waits for that: never on an event loop.
        ctx.channel().config().setAutoRead(false);
        Thread.ofVirtual().name("reload-admin").start(() -> {
            ReloadResult result = reloads.reload("admin API");
            ctx.executor().execute(() -> {
                ctx.channel().config().setAutoRead(true);
                send(ctx, result.ok() ? HttpResponseStatus.OK : HttpResponseStatus.UNPROCESSABLE_ENTITY,
                        result.ok() ? Json.reloaded(result) : Json.configErrors(result.errors()), keepAlive);
            });
        });
    }

    private static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String json, boolean keepAlive) {
        send(ctx, status, "application/json", (json + "\n").getBytes(StandardCharsets.UTF_8), keepAlive);
    }

    private static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, byte[] body,
                             boolean keepAlive) {
        write(ctx, response(status, contentType, body, keepAlive), keepAlive);
    }

    private static FullHttpResponse response(HttpResponseStatus status, String contentType, byte[] body,
                                             boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        HttpUtil.setKeepAlive(response, keepAlive);
        return response;
    }

    private static void write(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
