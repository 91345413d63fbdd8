package dev.usher.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;

import java.util.ArrayList;
import java.util.List;

/**
 * Sends the QUIC FIN that ends an HTTP/3 response in the same STREAM frame as the response's last bytes, instead of
 * in the empty STREAM frame Netty sends for {@code QuicStreamChannel.shutdownOutput()} after them.
 *
 * <p>Why: quiche, the QUIC library under Netty, counts a stream's sending side as complete once all its bytes are
 * acknowledged, whether or not the frame carrying the FIN was; a request stream whose request has been read is then
 * forgotten. When the packet holding an empty FIN frame is lost and the one before it, with the body, is acknowledged,
 * the FIN is never sent again: the client has the whole body and waits for its end until the connection's idle
 * timeout (quiche issue 2525). A FIN carried with bytes is acknowledged, or retransmitted, with them.
 *
 * <p>How: Netty's HTTP/3 conversion turns the response's {@link LastHttpContent} into HTTP/3 frames written at once,
 * then shuts the stream's output down once they are written. {@link #lastContentWatch()}, just above the conversion,
 * marks that write; {@link #finalBytes()}, next to the stream channel (below Netty's frame encoder), holds the encoded
 * frames written meanwhile and writes them as one QUIC stream frame with FIN. The conversion's {@code shutdownOutput()}
 * then finds the FIN sent and does nothing (its future, which nobody watches, fails). Frames not written within the
 * mark (e.g. headers held back by QPACK) go out as before, followed by Netty's empty FIN.
 *
 * <p>One instance per request stream; the stream's event loop only.
 */
final class Http3ResponseEnd {
    private final List<ByteBuf> held = new ArrayList<>(3);
    private final List<ChannelPromise> heldPromises = new ArrayList<>(3);
    private boolean lastContentPassing;
    private ChannelHandlerContext channelEnd;

    /** For the stream pipeline just above the HTTP/3 conversion: marks the write of the response's end. */
    ChannelHandler lastContentWatch() {
        return new LastContentWatch();
    }

    /** For the stream pipeline's head (next to the channel): holds the frames of the response's end, and sends them. */
    ChannelHandler finalBytes() {
        return new FinalBytes();
    }

    private void writeHeldWithFin() {
        if (held.isEmpty()) {
            return;
        }
        ByteBuf bytes = held.size() == 1 ? held.getFirst() : Unpooled.wrappedBuffer(held.toArray(new ByteBuf[0]));
        List<ChannelPromise> promises = List.copyOf(heldPromises);
        held.clear();
        heldPromises.clear();
        channelEnd.write(new DefaultQuicStreamFrame(bytes, true)).addListener(f -> {
            for (ChannelPromise promise : promises) {
                if (f.isSuccess()) {
                    promise.trySuccess();
                } else {
                    promise.tryFailure(f.cause());
                }
            }
        });
    }

    private final class LastContentWatch extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            // Netty's conversion ends the stream after every LastHttpContent but a 100 Continue (an interim answer).
            boolean ends = msg instanceof LastHttpContent
                    && !(msg instanceof HttpResponse response && HttpResponseStatus.CONTINUE.equals(response.status()));
            if (!ends) {
                ctx.write(msg, promise);
                return;
            }
            lastContentPassing = true;
            try {
                ctx.write(msg, promise);
            } finally {
                lastContentPassing = false;
                writeHeldWithFin();
            }
        }
    }

    private final class FinalBytes extends ChannelOutboundHandlerAdapter {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channelEnd = ctx;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (lastContentPassing && msg instanceof ByteBuf bytes) {
                held.add(bytes);
                heldPromises.add(promise);
            } else {
                ctx.write(msg, promise);
            }
        }
    }
}
