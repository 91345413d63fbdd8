package dev.usher.protocol;

import dev.usher.observe.ConnectionFacts;
import dev.usher.observe.RequestObserver;
import dev.usher.observe.RequestRecorder;
import dev.usher.config.UsherConfig;
import dev.usher.proxy.Http1ProxyHandler;
import dev.usher.proxy.Http2StreamProxyHandler;
import dev.usher.route.RouteTableHolder;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2LocalFlowController;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;

/**
 * Assembles an HTTP/2 connection (after TLS and ALPN "h2"): flush consolidation, the frame codec with Usher's
 * limits ({@link Http2StrictFrameCodec}), the idle timeout, and the multiplexer whose child channel per stream runs
 * {@link Http2StreamHttpCodec} → {@link Http2StreamErrors} → {@link Http2ResponseHeads} → {@link ResponseCompressor}
 * → {@link Http2StreamProxyHandler}.
 *
 * <p>Child channels are registered on the connection's event loop, so each stream leases backend connections from
 * the same per-loop pools as HTTP/1.1 connections on that loop.
 */
final class Http2Pipeline {
    /**
     * SETTINGS_MAX_CONCURRENT_STREAMS. Each open stream may hold a backend connection and up to a stream window of
     * buffered request body; 256 lets a browser load a large page in one go (Chrome opens up to 100-256), while
     * bounding what one connection can pin. More HEADERS than this are refused with RST_STREAM(REFUSED_STREAM).
     */
    static final int MAX_CONCURRENT_STREAMS = 256;
    /**
     * The receive window of each stream: how much request body a client may send ahead of the backend taking it.
     * 256 KiB keeps one big upload fast over a long path while bounding what a stalled stream buffers.
     */
    static final int STREAM_WINDOW = 256 * 1024;
    /**
     * The connection's receive window. Body bytes a stream has not read yet (its backend is slow) hold connection
     * window too; 16 stream windows' worth keeps a few stalled streams from blocking the others' uploads.
     */
    static final int CONNECTION_WINDOW = 16 * STREAM_WINDOW;
    /**
     * Rapid reset (CVE-2023-44487): more than this many RST_STREAM frames from the client within
     * {@link #RST_WINDOW_SECONDS} ends the connection with GOAWAY(ENHANCE_YOUR_CALM). A browser cancels a handful
     * of streams when the user navigates; an attack sends thousands.
     */
    static final int MAX_RST_FRAMES = 200;
    static final int RST_WINDOW_SECONDS = 30;
    /**
     * "MadeYouReset" (CVE-2025-8671): a client provoking Usher into resetting streams (bad frames on open streams)
     * gets the same cap on the resets Usher sends.
     */
    static final int MAX_SENT_RST_FRAMES = 200;
    /** Control frames (PING/SETTINGS acks, RST) queued for a client that does not read them: past this, close. */
    static final int MAX_QUEUED_CONTROL_FRAMES = 10_000;
    /** How long a graceful close (GOAWAY) waits for open streams to finish before cutting them. */
    static final long GRACEFUL_SHUTDOWN_MILLIS = 30_000;

    private Http2Pipeline() {
    }

    /** Adds the HTTP/2 handlers after the {@code SslHandler} of a connection that negotiated "h2". */
    static void install(ChannelPipeline pipeline, RouteTableHolder routes, CompressBudget compression,
                        RequestObserver observer, AltSvc altSvc) {
        AltSvcHeader altSvcHeader = altSvc == null ? null : new AltSvcHeader(altSvc);
        ConnectionFacts facts = observer == null ? null : new ConnectionFacts(pipeline.channel());
        UsherConfig config = routes.get().config();
        // limits.header_size as SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 §6.5.2, counted as RFC 7541 sizes: name,
        // value and 32 per field). Netty enforces it in the decoder from the first frame: a block that decodes
        // larger gets a 431 on its stream, then RST_STREAM(PROTOCOL_ERROR), with nothing passed on; a block whose
        // encoded size is over 1.25 times the limit is not even buffered and ends the connection (GOAWAY
        // PROTOCOL_ERROR), since its HPACK state can no longer be kept. Http2RequestLimitsTest shows both.
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                .maxHeaderListSize(config.limits().headerSize())
                .initialWindowSize(STREAM_WINDOW);
        // SETTINGS_ENABLE_CONNECT_PROTOCOL stays unset: no websockets (RFC 8441) over HTTP/2.
        Http2FrameCodec codec = Http2StrictFrameCodec.forServer()
                .initialSettings(settings)
                .validateHeaders(true)
                .validateRequiredPseudoHeaders(true) // a request without :method, :scheme or :path: PROTOCOL_ERROR
                .decoderEnforceMaxRstFramesPerWindow(MAX_RST_FRAMES, RST_WINDOW_SECONDS)
                .encoderEnforceMaxRstFramesPerWindow(MAX_SENT_RST_FRAMES, RST_WINDOW_SECONDS)
                .encoderEnforceMaxQueuedControlFrames(MAX_QUEUED_CONTROL_FRAMES)
                .decoderEnforceMaxConsecutiveEmptyDataFrames(2)
                .gracefulShutdownTimeoutMillis(GRACEFUL_SHUTDOWN_MILLIS)
                .build();
        Http2IdleTimeout idle = new Http2IdleTimeout(config.timeouts().idle().toNanos());
        // Streams answered from different backend connections in one event-loop turn go out in one TLS write and one
        // syscall, not one each: the codec's flushes are put off to a task at the end of the turn (or passed on at
        // once after 256 of them, or when the connection stops being writable or closes). Nothing waits longer.
        pipeline.addLast("h2-flush", new FlushConsolidationHandler(
                        FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true))
                .addLast("h2", codec)
                .addLast("h2-idle", idle)
                .addLast("h2-streams", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel stream) {
                        idle.streamOpened(stream);
                        stream.pipeline()
                                .addLast("h2-http", new Http2StreamHttpCodec())
                                .addLast(Http2StreamErrors.NAME, Http2StreamErrors.INSTANCE)
                                .addLast("h2-heads", Http2ResponseHeads.INSTANCE);
                        if (altSvcHeader != null) {
                            stream.pipeline().addLast(AltSvcHeader.NAME, altSvcHeader);
                        }
                        if (facts != null) {
                            stream.pipeline().addLast(RequestRecorder.NAME,
                                    RequestRecorder.http2Stream(observer, facts));
                        }
                        stream.pipeline()
                                .addLast(Http1ProxyHandler.COMPRESSOR_NAME, new ResponseCompressor(compression))
                                .addLast("proxy", new Http2StreamProxyHandler(routes));
                    }
                }))
                .addLast("h2-errors", ConnectionErrors.HTTP2);
        widenConnectionWindow(codec);
        // Request bodies are held back by HTTP/2 flow control per stream, not by TCP: the connection itself reads
        // continuously (frames are small, streams and control frames are capped above).
        pipeline.channel().config().setAutoRead(true);
    }

    private static void widenConnectionWindow(Http2FrameCodec codec) {
        Http2Connection connection = codec.connection();
        Http2LocalFlowController flow = connection.local().flowController();
        int delta = CONNECTION_WINDOW - flow.initialWindowSize(connection.connectionStream());
        if (delta > 0) {
            try {
                flow.incrementWindowSize(connection.connectionStream(), delta);
            } catch (Http2Exception e) {
                throw new IllegalStateException(e); // only on overflow, impossible from the default window
            }
        }
    }
}
