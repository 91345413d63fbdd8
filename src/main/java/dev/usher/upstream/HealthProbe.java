package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.config.UpstreamScheme;
import dev.usher.config.UpstreamTls;
import dev.usher.net.Transport;
import dev.usher.upstream.BackendConnector.Protocol;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One health check of one backend: connect (over TLS for https://, offering http/1.1 only; on a stream of its own
 * HTTP/2 connection for h2c://), {@code GET path} with {@code Connection: close}, and judge the status line (2xx or
 * 3xx is healthy); the body is not read. A fresh connection each time, outside the pool: a check should
 * see what a new connection sees, and must not use up a keep-alive connection a request could have had.
 *
 * <p>Everything runs on one event loop; {@code done} is called exactly once, with null for healthy or a short reason
 * ({@code connection refused}, {@code timed out after 2s}, {@code status 503}), unless the probe is cancelled.
 */
final class HealthProbe extends ChannelInboundHandlerAdapter implements Probe {
    private final UpstreamPool pool;
    private final String path;
    private final Duration timeout;
    private final EventLoop loop;
    private final Transport transport;
    private final Consumer<String> done;
    private Channel channel;
    private ScheduledFuture<?> timer;
    private boolean finished;

    HealthProbe(UpstreamPool pool, String path, Duration timeout, EventLoop loop, Transport transport,
                Consumer<String> done) {
        this.pool = pool;
        this.path = path;
        this.timeout = timeout;
        this.loop = loop;
        this.transport = transport;
        this.done = done;
    }

    @Override
    public void start() {
        UpstreamAddress address = pool.address();
        long millis = Math.max(1, timeout.toMillis());
        try {
            timer = loop.schedule(() -> finish("timed out after " + HealthChecker.format(timeout)), millis,
                    TimeUnit.MILLISECONDS);
            // HTTP/1.1 where the backend may speak it (a check should be cheap); HTTP/2 to one that offers nothing else.
            boolean http1Only = pool.address().scheme() != UpstreamScheme.HTTPS
                    || pool.address().tls().alpn().contains(UpstreamTls.HTTP_1_1);
            Future<Protocol> connected = BackendConnector.connect(pool, loop, timeout, http1Only, true, (ch, protocol) -> {
                channel = ch;
                if (protocol == Protocol.HTTP1) {
                    // Small limits: only the status line matters, and a check must not cost memory.
                    ch.pipeline().addLast("http", new HttpClientCodec(new HttpDecoderConfig()
                            .setMaxInitialLineLength(4096).setMaxHeaderSize(16 * 1024), false, false));
                    ch.pipeline().addLast("probe", HealthProbe.this);
                } else {
                    H2Connection.install(ch, null, gone -> { });
                }
            });
            connected.addListener(f -> {
                if (!f.isSuccess()) {
                    finish(describe(f.cause()));
                } else if (!finished && connected.getNow() == Protocol.HTTP1) {
                    send(channel);
                } else if (!finished) {
                    overHttp2();
                }
            });
        } catch (RejectedExecutionException e) {
            finish("event loop shut down");
        }
    }

    /** An HTTP/2 backend ({@code h2c://}): the check is one stream of its own connection. */
    private void overHttp2() {
        new Http2StreamChannelBootstrap(channel)
                .handler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel stream) {
                        stream.pipeline().addLast("h2-http", new Http2StreamFrameToHttpObjectCodec(false));
                        stream.pipeline().addLast("probe", HealthProbe.this);
                    }
                })
                .open()
                .addListener((Future<Http2StreamChannel> f) -> {
                    if (!f.isSuccess()) {
                        finish(describe(f.cause()));
                    } else if (!finished) {
                        send(f.getNow());
                    }
                });
    }

    private void send(Channel to) {
        to.writeAndFlush(request(pool.address())).addListener(w -> {
            if (!w.isSuccess()) {
                finish(describe(w.cause()));
            }
        });
    }

    /** Ends the probe without a verdict (checks stopped). */
    @Override
    public void cancel() {
        finished = true;
        release();
    }

    private DefaultFullHttpRequest request(UpstreamAddress address) {
        DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
        req.headers()
                .set(HttpHeaderNames.HOST, address.authority())
                .set(HttpHeaderNames.USER_AGENT, "usher-health")
                .set(HttpHeaderNames.ACCEPT, "*/*")
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return req;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpResponse response) {
                if (response.decoderResult().isFailure()) {
                    finish("bad response (" + describe(response.decoderResult().cause()) + ")");
                    return;
                }
                int code = response.status().code();
                if (code >= 100 && code < 200 && code != 101) {
                    return; // an interim answer (100 Continue, 103 Early Hints): the real one follows
                }
                finish(code >= 200 && code < 400 ? null : "status " + code);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        finish("connection closed before answering");
    }

    @Override
    public boolean isSharable() {
        return true; // on an HTTP/2 backend it sits on the check's stream, never on two pipelines at once
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        finish(describe(cause));
    }

    private void finish(String failure) {
        if (finished) {
            return;
        }
        finished = true;
        release();
        done.accept(failure);
    }

    private void release() {
        if (timer != null) {
            timer.cancel(false);
        }
        if (channel != null) {
            channel.close();
        }
    }

    /** A short reason for a log line; the address is already in the line. */
    static String describe(Throwable cause) {
        if (cause instanceof ConnectTimeoutException) {
            return "connect timed out";
        }
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        if (cause instanceof ConnectException && message.toLowerCase().contains("refused")) {
            return "connection refused";
        }
        if (cause instanceof UnknownHostException) {
            return "unknown host";
        }
        if (cause instanceof BackendConnector.BackendTlsException) {
            return message;
        }
        if (message.toLowerCase().contains("connection reset")) {
            return "connection reset";
        }
        return message.isEmpty() ? cause.getClass().getSimpleName() : message;
    }
}
