package dev.usher.protocol;

import dev.usher.config.UsherConfig;
import dev.usher.observe.ConnectionFacts;
import dev.usher.observe.OpenConnections;
import dev.usher.observe.RequestObserver;
import dev.usher.observe.RequestRecorder;
import dev.usher.proxy.Http1ProxyHandler;
import dev.usher.proxy.Http2StreamProxyHandler;
import dev.usher.proxy.StreamProtocol;
import dev.usher.route.RouteTableHolder;
import dev.usher.tls.QuicContexts;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http3.DefaultHttp3SettingsFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3FrameToHttpObjectCodec;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.http3.Http3SettingsFrame;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.util.concurrent.TimeUnit;

/**
 * Assembles HTTP/3: the QUIC server codec for the UDP socket (certificates by SNI through {@link QuicContexts},
 * Usher's limits as QUIC transport parameters), and per QUIC connection the HTTP/3 connection handler whose request
 * streams run {@link Http3StreamErrors} → {@link Http3FieldCheck} → {@code Http3FrameToHttpObjectCodec} →
 * {@link Http3ResponseEnd} (its other half sits below Netty's frame encoder) → {@link Http3CancelLimit} →
 * {@link Http2ResponseHeads} → {@link ResponseCompressor} →
 * {@link Http2StreamProxyHandler} (as {@link StreamProtocol#HTTP3}): the same route table, rules and backend pools as
 * HTTP/1.1 and HTTP/2.
 *
 * <p>Flow control: a request stream's auto-read is off and the proxy handler reads only while the backend is
 * writable; QUIC returns stream credit to the client only for bytes read, so a slow backend holds the client to the
 * stream window. Responses follow the stream channel's writability (its send capacity).
 *
 * <p>Threading: every QUIC connection of a UDP socket, and its streams, run on the socket's event loop, so backend
 * connections come from that loop's pools.
 */
public final class Http3Pipeline {
    /**
     * Concurrent request streams per connection (QUIC initial_max_streams_bidi; quiche grants more as streams end).
     * Browsers open up to about 100 at once; each may hold a backend connection and a stream window of body.
     */
    static final long MAX_CONCURRENT_STREAMS = 128;
    /** Request body a client may send ahead of the backend taking it, per stream (as for HTTP/2). */
    static final long STREAM_WINDOW = 256 * 1024;
    /** The whole connection's receive window: 16 stream windows, as for HTTP/2. */
    static final long CONNECTION_WINDOW = 16 * STREAM_WINDOW;

    private Http3Pipeline() {
    }

    /**
     * The QUIC server codec for a UDP socket: handshakes with the certificates of {@code contexts} (with Retry while
     * many are under way: {@link QuicRetryTokens}), then each connection is passed to {@code connectionHandler} (see
     * {@link #connectionInitializer}, given the same {@code handshakes}).
     */
    public static ChannelHandler codec(QuicContexts contexts, UsherConfig config, QuicHandshakes handshakes,
                                       ChannelHandler connectionHandler) {
        return Http3.newQuicServerCodecBuilder()
                .tokenHandler(new QuicRetryTokens(handshakes::inFlight, QuicRetryTokens.DEFAULT_THRESHOLD))
                .sslContext(contexts.sniContext())
                .maxIdleTimeout(config.timeouts().idle().toMillis(), TimeUnit.MILLISECONDS)
                .initialMaxData(CONNECTION_WINDOW)
                .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
                .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
                .initialMaxStreamsBidirectional(MAX_CONCURRENT_STREAMS)
                .handler(connectionHandler)
                .build();
    }

    /**
     * Sets up each QUIC connection: the connection cap and the open-connection count once its handshake is complete
     * ({@link QuicAdmission}), HTTP/3 with Usher's settings and the graceful close. Limits and timeouts come from the route table current when the connection arrives.
     *
     * @param observer   told of each request as it ends, or null
     * @param open       counts open HTTP/3 connections for the metrics
     * @param handshakes counts the handshakes under way, for the codec's Retry decision
     */
    public static ChannelHandler connectionInitializer(RouteTableHolder routes, ConnectionLimiter limiter,
                                                       CompressBudget compression, RequestObserver observer,
                                                       OpenConnections open, QuicHandshakes handshakes) {
        return new ChannelInitializer<QuicChannel>() {
            @Override
            protected void initChannel(QuicChannel connection) {
                connection.pipeline().addLast("quic-admission", new QuicAdmission(limiter, open, handshakes));
                install(connection, routes, compression, observer);
            }
        };
    }

    private static void install(QuicChannel connection, RouteTableHolder routes, CompressBudget compression,
                                RequestObserver observer) {
        UsherConfig config = routes.get().config();
        ConnectionFacts facts = observer == null ? null : new ConnectionFacts(connection);
        Http3GracefulClose graceful = new Http3GracefulClose();
        Http3CancelLimit cancels = new Http3CancelLimit(connection);
        // limits.header_size as SETTINGS_MAX_FIELD_SECTION_SIZE (RFC 9114 §7.2.4.1): Netty refuses a larger header
        // section before anything is passed on.
        Http3SettingsFrame settings = new DefaultHttp3SettingsFrame();
        settings.put(Http3SettingsFrame.HTTP3_SETTINGS_MAX_FIELD_SECTION_SIZE, (long) config.limits().headerSize());
        ChannelHandler requestStreams = new ChannelInitializer<QuicStreamChannel>() {
            @Override
            protected void initChannel(QuicStreamChannel stream) {
                graceful.streamOpened(stream);
                Http3ResponseEnd end = new Http3ResponseEnd();
                stream.pipeline()
                        .addFirst("h3-final-bytes", end.finalBytes())
                        .addLast("h3-stream-errors", Http3StreamErrors.INSTANCE)
                        .addLast("h3-fields", Http3FieldCheck.INSTANCE)
                        .addLast("h3-http", new Http3FrameToHttpObjectCodec(true))
                        .addLast("h3-response-end", end.lastContentWatch())
                        .addLast("h3-cancels", cancels.streamHandler())
                        .addLast("h3-heads", Http2ResponseHeads.INSTANCE);
                if (facts != null) {
                    stream.pipeline().addLast(RequestRecorder.NAME, RequestRecorder.http3Stream(observer, facts));
                }
                stream.pipeline()
                        .addLast(Http1ProxyHandler.COMPRESSOR_NAME, new ResponseCompressor(compression))
                        .addLast("proxy", new Http2StreamProxyHandler(routes, StreamProtocol.HTTP3));
            }
        };
        connection.pipeline()
                .addLast("h3", new Http3ServerConnectionHandler(requestStreams, null, null, settings, true))
                .addLast("h3-close", graceful)
                .addLast("h3-errors", ConnectionErrors.HTTP3);
    }
}
