package dev.usher.observe;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.ArrayDeque;

/**
 * Watches the HTTP messages of one HTTP/1.1 connection or one HTTP/2 stream, between the codec and the compressor:
 * a request head opens a {@link RequestTrace}, body bytes are counted both ways (response bytes as sent, after
 * compression), and the last piece of a final response (or a 101) ends the request, which then goes to the
 * {@link RequestObserver}. Requests still open when the channel goes inactive end there, with the status sent so
 * far (0 when none was).
 *
 * <p>A request ends when its last byte is handed to the connection below, not when the socket write completes: the
 * proxy writes with void promises, and a listener per request would cost an allocation for little more accuracy.
 *
 * <p>HTTP/1.1 pipelining: requests decoded ahead of their turn queue here in order; responses go out in the same
 * order, so the oldest open trace is always the one being answered ({@link #current}).
 *
 * <p>Threading: the channel's event loop only. One instance per connection or stream.
 */
public final class RequestRecorder extends ChannelDuplexHandler {
    /** The handler's name in the pipeline, by which the dispatch finds it. */
    public static final String NAME = "observe";

    private final RequestObserver observer;
    private final Protocol protocol;
    private final ConnectionFacts connection;
    /** The oldest open request (the one being answered), or null. */
    private RequestTrace head;
    /** Later pipelined requests (HTTP/1.1 only), made on first need. */
    private ArrayDeque<RequestTrace> more;

    private RequestRecorder(RequestObserver observer, Protocol protocol, ConnectionFacts connection) {
        this.observer = observer;
        this.protocol = protocol;
        this.connection = connection;
    }

    /** A recorder for one HTTP/1.1 connection. */
    public static RequestRecorder http1(RequestObserver observer, Channel connection) {
        return new RequestRecorder(observer, Protocol.H1, new ConnectionFacts(connection));
    }

    /** A recorder for one stream of an HTTP/2 connection; {@code connection} is shared by its streams. */
    public static RequestRecorder http2Stream(RequestObserver observer, ConnectionFacts connection) {
        return new RequestRecorder(observer, Protocol.H2, connection);
    }

    /** A recorder for one request stream of an HTTP/3 connection; {@code connection} is shared by its streams. */
    public static RequestRecorder http3Stream(RequestObserver observer, ConnectionFacts connection) {
        return new RequestRecorder(observer, Protocol.H3, connection);
    }

    /** The trace of the request being answered now, or null. */
    public RequestTrace current() {
        return head;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            RequestTrace trace = new RequestTrace(System.currentTimeMillis(), System.nanoTime(),
                    request.headers().get(HttpHeaderNames.HOST), request.method().name(), request.uri());
            if (head == null) {
                head = trace;
            } else {
                if (more == null) {
                    more = new ArrayDeque<>(2);
                }
                more.add(trace);
            }
        }
        if (msg instanceof HttpContent content) {
            RequestTrace last = more == null || more.isEmpty() ? head : more.peekLast();
            if (last != null) {
                last.bytesIn += content.content().readableBytes();
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        RequestTrace trace = head;
        if (trace != null) {
            boolean end = false;
            if (msg instanceof HttpResponse response) {
                int code = response.status().code();
                if (code >= 200 || code == 101) {
                    trace.status = code;
                    end = code == 101; // the rest is a relay of raw bytes, no longer HTTP
                }
            }
            if (msg instanceof HttpContent content && trace.status != 0) {
                trace.bytesOut += content.content().readableBytes();
                end |= msg instanceof LastHttpContent;
            } else if (msg instanceof io.netty.channel.FileRegion region && trace.status != 0) {
                trace.bytesOut += region.count(); // a file sent by zero-copy transfer
            }
            if (end) {
                ended();
            }
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        while (head != null) {
            ended();
        }
        super.channelInactive(ctx);
    }

    private void ended() {
        RequestTrace trace = head;
        head = more == null ? null : more.poll();
        observer.requestEnded(trace.end(System.nanoTime(), connection.client(), protocol, connection.tls()));
    }
}
