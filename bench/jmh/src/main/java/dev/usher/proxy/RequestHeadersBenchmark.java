package dev.usher.proxy;

import dev.usher.bench.BenchConfigs;
import dev.usher.route.Route;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.RuleServices;
import dev.usher.rules.SiteRules;
import dev.usher.net.Transport;
import dev.usher.upstream.UpstreamPools;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The per-request header work between a decoded request head and the start of its exchange, on a typical browser
 * GET (16 headers, keep-alive, from an untrusted peer): what {@code Http1ProxyHandler.startRequest} checks, the
 * route lookup, the site's rules ({@code checkAsync}, client address) and {@code RequestDispatch.prepareForBackend}
 * (hop-by-hop headers out, X-Forwarded-* in, the site's request_headers edits). The {@link #work} method mirrors
 * those callers step by step (the exchange itself needs a backend); keep it in step when they change. Each call works on a fresh copy of
 * the decoded request (the work edits headers in place); the copy alone is {@link #copyOnly} — subtract it.
 *
 * <p>{@code edits}: {@code none} for a site without rules, {@code some} for one with two request_headers edits.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RequestHeadersBenchmark {
    @Param({"none", "some"})
    String edits;

    private UpstreamPools pools;
    private RuleServices services;
    private RouteTable table;
    private EmbeddedChannel channel;
    private RequestDispatch dispatch;
    private HttpRequest template;
    private java.net.InetAddress peer;

    @Setup
    public void setUp() {
        pools = new UpstreamPools(Transport.nio());
        services = new RuleServices();
        String extras = edits.equals("some") ? "request_headers: {X-Env: prod, -Cookie: ~}" : null;
        table = RouteTable.compile(BenchConfigs.sites(20, extras), pools, services);
        channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        ChannelHandlerContext ctx = channel.pipeline().firstContext();
        peer = new InetSocketAddress("203.0.113.7", 51234).getAddress();
        dispatch = new RequestDispatch(RouteTableHolder.of(table), "http", new NoClient(), ctx,
                new InetSocketAddress(peer, 51234));
        // The template is what Usher's decoder hands on: decode the wire text once with Netty's decoder.
        EmbeddedChannel decoder = new EmbeddedChannel(new HttpRequestDecoder());
        decoder.writeInbound(Unpooled.copiedBuffer(BenchConfigs.BROWSER_GET, StandardCharsets.ISO_8859_1));
        template = decoder.readInbound();
        ReferenceCountUtil.release(decoder.readInbound());
        decoder.finishAndReleaseAll();
        if (work(copy()) == null) {
            throw new IllegalStateException("no route");
        }
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
        table.close();
        services.close();
        pools.close();
    }

    private HttpRequest copy() {
        return new DefaultHttpRequest(template.protocolVersion(), template.method(), template.uri(),
                template.headers().copy());
    }

    /** What Usher does with a GET before the exchange starts; mirrors startRequest, dispatch and prepareForBackend. */
    private HttpRequest work(HttpRequest request) {
        // Http1ProxyHandler.startRequest
        boolean http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
        boolean hasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
        String transferEncoding = request.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
        String host = RequestTarget.resolveHost(request);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (http10 || hasBody || transferEncoding != null || host == null || !keepAlive
                || request.headers().contains(HttpHeaderNames.UPGRADE)) {
            throw new IllegalStateException("not the typical GET");
        }
        // RequestDispatch.dispatch, up to the exchange
        Route route = table.lookup(host);
        if (route == null) {
            return null;
        }
        SiteRules rules = route.rules();
        java.net.InetAddress client = rules.clientAddress(peer, request.headers());
        FullHttpResponse answer = rules.needsAsync()
                ? rules.checkAsync(request, client, "http", true, channel.eventLoop()).getNow()
                : rules.check(request, client, "http", true);
        if (answer != null) {
            throw new IllegalStateException("answered locally");
        }
        dispatch.prepareForBackend(request, route, client, false, false);
        return request;
    }

    @Benchmark
    public HttpRequest copyOnly() {
        return copy();
    }

    @Benchmark
    public HttpRequest headerWork() {
        return work(copy());
    }

    @Benchmark
    public HttpRequest prepareForBackendOnly() {
        HttpRequest request = copy();
        dispatch.prepareForBackend(request, table.lookup("app0.example.com"), peer, false, false);
        return request;
    }

    @Benchmark
    public void resolveHostOnly(Blackhole bh) {
        bh.consume(RequestTarget.resolveHost(template));
    }

    /** Never called: the benchmark stops before an answer or an exchange. */
    private static final class NoClient implements ClientSide {
        @Override public boolean isHttps() { return false; }
        @Override public boolean zeroCopy() { return false; }
        @Override public void respond(FullHttpResponse response, boolean close) { response.release(); }
        @Override public ResponseTimer responseTimer() { return null; }
        @Override public void exchangeStarted(Exchange exchange) { }
        @Override public void exchangeDone(Exchange done, boolean closeConnection) { }
        @Override public void abortConnection() { }
        @Override public void switchToRelay(Channel backend, boolean websocket, Duration idleTimeout) { }
    }
}
