package dev.usher.admin;

import dev.usher.cert.CertManager;
import dev.usher.cert.CertifiedKey;
import dev.usher.reload.ReloadResult;
import dev.usher.reload.Reloader;
import dev.usher.observe.Metrics;
import dev.usher.observe.PrometheusText;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
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
 * The admin endpoint's requests: the web UI's files ({@code /}, {@code /ui/...}, see {@link StaticFiles}) and API
 * ({@code /api/...}, see {@link AdminApi}), and for tools {@code GET /health}, {@code GET /certificates}, {@code POST
 * /certificates/NAME/renew}, {@code POST /reload} (200 with what changed, or 422 with the config's errors),
 * {@code GET /metrics} (Prometheus text). Other answers are JSON. Requests whose Host is not a loopback name are
 * refused (a web page
 * cannot reach this endpoint through DNS rebinding), and so are browser requests from another origin (CSRF).
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String CERTIFICATES = "/certificates";
    private static final String RENEW = "/renew";
    private static final String API = "/api/";
    private static final System.Logger LOG = System.getLogger(AdminHandler.class.getName());

    private final Supplier<CertManager> certificateSource;
    private final Supplier<Reloader> reloader;
    private final Metrics metrics;
    private final AdminSecret secret;
    private final Sessions sessions;
    private final AdminApi api;
    private final StaticFiles ui;

    /**
     * Both suppliers may give null: no HTTPS served; not started from a config file. {@code metrics}: null for none
     * (404). {@code secret}: checks the token each request must carry when a secret is configured. {@code api} and
     * {@code ui}: the web UI's API and files; {@code sessions}: its logins.
     */
    AdminHandler(Supplier<CertManager> certificates, Supplier<Reloader> reloader, Metrics metrics,
                 AdminSecret secret, Sessions sessions, AdminApi api, StaticFiles ui) {
        this.certificateSource = certificates;
        this.reloader = reloader;
        this.metrics = metrics;
        this.secret = secret;
        this.sessions = sessions;
        this.api = api;
        this.ui = ui;
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
        String path = pathOf(request.uri());
        if (!secret.required()) {
            // Without a secret the endpoint is on loopback, and a page that rebinds its own name to 127.0.0.1 must
            // not reach it: only requests addressed to a loopback name are served.
            if (!LoopbackHosts.isLoopbackHost(host) || !fromLoopback(ctx)) {
                send(ctx, HttpResponseStatus.FORBIDDEN, Json.error("the admin endpoint answers only requests made "
                        + "to localhost"), keepAlive);
                return;
            }
            dispatch(ctx, request, path, keepAlive, null, false);
            return;
        }
        // With a password: the UI's files and its login calls are open; the rest needs a session (the browser)
        // or the secret itself (tools such as usher renew).
        Sessions.Session session = sessions.find(request.headers().get(HttpHeaderNames.COOKIE));
        if (session != null || StaticFiles.serves(path) || AdminApi.open(path)) {
            dispatch(ctx, request, path, keepAlive, session, false);
            return;
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization == null && path.startsWith(API)) {
            send(ctx, HttpResponseStatus.UNAUTHORIZED, Json.error("login required"), keepAlive);
            return;
        }
        // A guess in the Authorization header counts against the same per-client throttle as the login form (a
        // token that already matched does not: a tool polling with it is no guess).
        String client = client(ctx, request);
        if (authorization != null && !secret.remembered(authorization) && !sessions.tryAttempt(client)) {
            send(ctx, HttpResponseStatus.TOO_MANY_REQUESTS, Json.error("too many wrong passwords from your address; "
                    + "wait a few minutes"), false);
            return;
        }
        request.retain();
        ctx.channel().config().setAutoRead(false);
        secret.check(authorization).whenComplete((ok, failure) ->
                ctx.executor().execute(() -> {
                    try {
                        ctx.channel().config().setAutoRead(true);
                        // Closed after this answer: a request pipelined behind it must not be answered first.
                        if (Boolean.TRUE.equals(ok)) {
                            sessions.succeeded(client);
                            dispatch(ctx, request, path, false, null, true);
                        } else {
                            FullHttpResponse refused = response(HttpResponseStatus.UNAUTHORIZED,
                                    "application/json", (Json.error(path.startsWith(API) ? "login required"
                                            : "this admin endpoint needs its secret: Authorization: Bearer <secret>")
                                            + "\n").getBytes(StandardCharsets.UTF_8), false);
                            refused.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"usher admin\"");
                            write(ctx, refused, false);
                        }
                    } finally {
                        request.release();
                    }
                }));
    }

    private static String pathOf(String uri) {
        int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }

    /** The UI's files, its API, or the tools' endpoints. */
    private void dispatch(ChannelHandlerContext ctx, FullHttpRequest request, String path, boolean keepAlive,
                          Sessions.Session session, boolean tokenClient) {
        if (StaticFiles.serves(path)) {
            serveFile(ctx, request, path, keepAlive);
        } else if (path.startsWith(API)) {
            ApiRequest call = new ApiRequest(request.method(), path, request.headers().copy(),
                    ByteBufUtil.getBytes(request.content()), session, overHttps(ctx, request), client(ctx, request),
                    tokenClient);
            ctx.channel().config().setAutoRead(false);
            Thread.ofVirtual().name("admin-api").start(() -> {
                Answer answer;
                try {
                    answer = api.handle(call);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.ERROR, "admin API " + call.method() + " " + path + " failed", e);
                    answer = Answer.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "failed: " + e);
                }
                Answer done = answer;
                ctx.executor().execute(() -> {
                    ctx.channel().config().setAutoRead(true);
                    if (done.file() != null) {
                        sendFile(ctx, done);
                        return;
                    }
                    FullHttpResponse response = response(done.status(), done.contentType(), done.body(), false);
                    done.headers().forEach((k, v) -> response.headers().set(k, v));
                    write(ctx, response, false); // closed: a request pipelined behind it must not overtake it
                });
            });
        } else if (session != null && !request.method().equals(HttpMethod.GET)
                && !Sessions.same(request.headers().get(AdminApi.CSRF_HEADER), session.csrf)) {
            // the tools' routes are meant for the secret; a browser's cookie alone must not reload or renew
            send(ctx, HttpResponseStatus.FORBIDDEN, Json.error("missing or wrong " + AdminApi.CSRF_HEADER
                    + " header"), keepAlive);
        } else {
            route(ctx, request, keepAlive);
        }
    }

    /** Sends an answer whose body is a temporary file (a backup) from disk, then deletes it and closes. */
    private static void sendFile(ChannelHandlerContext ctx, Answer answer) {
        java.nio.file.Path file = answer.file();
        long length;
        try {
            length = java.nio.file.Files.size(file);
        } catch (java.io.IOException e) {
            deleteQuietly(file);
            send(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, Json.error("the backup could not be read: "
                    + e.getMessage()), false);
            return;
        }
        DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, answer.status());
        head.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
                .set(HttpHeaderNames.CONTENT_LENGTH, length)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        guard(head.headers());
        answer.headers().forEach((k, v) -> head.headers().set(k, v));
        HttpUtil.setKeepAlive(head, false);
        ctx.write(head);
        ctx.write(new DefaultFileRegion(file.toFile(), 0, length));
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(done -> {
            deleteQuietly(file);
            ctx.close();
        });
    }

    private static void deleteQuietly(java.nio.file.Path file) {
        try {
            java.nio.file.Files.deleteIfExists(file);
        } catch (java.io.IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete the temporary backup " + file + ": " + e);
        }
    }

    private void serveFile(ChannelHandlerContext ctx, FullHttpRequest request, String path, boolean keepAlive) {
        if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
            send(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, Json.error("use GET"), keepAlive);
            return;
        }
        java.util.Optional<StaticFiles.File> file = ui.find(path);
        if (file.isEmpty()) {
            send(ctx, HttpResponseStatus.NOT_FOUND, Json.error("no such file: " + path), keepAlive);
            return;
        }
        FullHttpResponse response = response(HttpResponseStatus.OK, file.get().contentType(),
                request.method().equals(HttpMethod.HEAD) ? new byte[0] : file.get().bytes(), keepAlive);
        StaticFiles.HEADERS.forEach((k, v) -> response.headers().set(k, v));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, file.get().bytes().length);
        write(ctx, response, keepAlive);
    }

    /**
     * True when the request reached Usher over HTTPS: the admin site, whose requests Usher's own HTTPS listener
     * forwards here over loopback with {@code X-Forwarded-Proto: https}.
     */
    private static boolean overHttps(ChannelHandlerContext ctx, FullHttpRequest request) {
        return fromLoopback(ctx) && "https".equalsIgnoreCase(request.headers().get("X-Forwarded-Proto"));
    }

    /**
     * The client's address: the peer, or for the admin site (forwarded over loopback) the client Usher's proxy
     * determined: X-Real-IP, which it always sets (behind a trusted proxy the last X-Forwarded-For hop is that proxy,
     * shared by every client), else the last X-Forwarded-For.
     */
    private static String client(ChannelHandlerContext ctx, FullHttpRequest request) {
        String realIp = request.headers().get("X-Real-IP");
        if (realIp != null && !realIp.isBlank() && fromLoopback(ctx)) {
            return realIp.strip();
        }
        String forwarded = request.headers().get("X-Forwarded-For");
        if (forwarded != null && fromLoopback(ctx)) {
            return forwarded.substring(forwarded.lastIndexOf(',') + 1).strip();
        }
        return ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress peer && peer.getAddress() != null
                ? peer.getAddress().getHostAddress() : "unknown";
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
        String path = pathOf(request.uri());
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
        guard(response.headers());
        HttpUtil.setKeepAlive(response, keepAlive);
        return response;
    }

    /**
     * Headers on every answer: not to be framed (clickjacking) nor read as anything but its content type; an API
     * answer is data, never a page (the UI's files replace the policy with their own).
     */
    private static void guard(io.netty.handler.codec.http.HttpHeaders headers) {
        headers.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
                .set("X-Frame-Options", "DENY")
                .set("X-Content-Type-Options", "nosniff");
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
