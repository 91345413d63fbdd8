package dev.usher.proxy;

import dev.usher.route.Route;
import dev.usher.statics.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;

import java.io.IOException;
import java.lang.System.Logger.Level;

/**
 * One request answered from a site's folder ({@link dev.usher.statics.StaticFiles}): an error page, a complete
 * answer, or a file streamed to the client. Over plain HTTP/1.1 a file that is not compressed on the way goes by
 * zero-copy transfer ({@link DefaultFileRegion}, sendfile under epoll); otherwise (TLS, HTTP/2, HTTP/3, compression,
 * multipart ranges) it is read in {@value #CHUNK}-byte pieces while the client connection is writable, so a 1 GiB
 * file needs no more memory than the connection's write buffer. A client that stops reading for the site's write
 * timeout is cut.
 *
 * <p>One transfer at a time per connection: the next pipelined request waits until this one is written (a
 * zero-copy transfer until its last byte left), so a client cannot keep many files open at once.
 *
 * <p>Threading: the client channel's event loop.
 */
final class FileExchange implements Exchange {
    private static final System.Logger LOG = System.getLogger(FileExchange.class.getName());
    static final int CHUNK = 32 * 1024;

    /** Where the exchange is. */
    private enum Phase { WAITING, SENDING, DONE }

    private final ClientSide side;
    private final ChannelHandlerContext ctx;
    private final Route route;
    private final HttpRequest request;
    private final RequestShape shape;
    private Phase phase = Phase.WAITING;
    private boolean closeAfter;
    private Reply.Transfer transfer;
    /** The part of the transfer being sent, and how far into its slice of the file. */
    private int part;
    private long sentOfPart;
    private boolean prefixSent;
    private boolean pumping;
    private WriteStallTimer writeStall;

    FileExchange(ClientSide side, ChannelHandlerContext ctx, Route route, HttpRequest request, RequestShape shape) {
        this.side = side;
        this.ctx = ctx;
        this.route = route;
        this.request = request;
        this.shape = shape;
        this.closeAfter = !shape.keepAlive() || shape.hasBody();
    }

    @Override
    public void start() {
        if (phase != Phase.WAITING) {
            return; // the client left while its credentials were being checked
        }
        Reply reply = route.files().answer(request, route.rules().compress());
        switch (reply) {
            case Reply.Refusal refusal -> answer(refusal(refusal));
            case Reply.Answer answer -> answer(answer.response());
            case Reply.Transfer t -> send(t);
        }
    }

    private FullHttpResponse refusal(Reply.Refusal refusal) {
        FullHttpResponse page = ErrorPages.response(refusal.status(), closeAfter,
                route.site().traffic().errorPages());
        if (refusal.allow() != null) {
            page.headers().set(HttpHeaderNames.ALLOW, refusal.allow());
        }
        if (refusal.contentRange() != null) {
            page.headers().set(HttpHeaderNames.CONTENT_RANGE, refusal.contentRange());
        }
        return page;
    }

    private void answer(FullHttpResponse response) {
        phase = Phase.DONE;
        route.rules().editResponse(response.headers(), side.isHttps());
        side.respond(response, closeAfter);
        side.exchangeDone(this, closeAfter);
    }

    @Override
    public void reject(FullHttpResponse answer) {
        if (phase != Phase.WAITING) {
            answer.release();
            return;
        }
        phase = Phase.DONE;
        side.respond(answer, closeAfter);
        side.exchangeDone(this, closeAfter);
    }

    private void send(Reply.Transfer t) {
        phase = Phase.SENDING;
        transfer = t;
        route.rules().editResponse(t.head().headers(), side.isHttps());
        if (closeAfter) {
            t.head().headers().set(HttpHeaderNames.CONNECTION, "close");
        }
        if (side.zeroCopy() && t.single() && !t.compressible()) {
            sendZeroCopy(t);
        } else {
            ctx.write(t.head(), ctx.voidPromise());
            pump();
        }
    }

    /** The whole slice in one FileRegion, which owns the file from now on; done when its last byte left. */
    private void sendZeroCopy(Reply.Transfer t) {
        ctx.channel().attr(Http1ProxyHandler.COMPRESS).set(false);
        Reply.Part slice = t.parts().get(0);
        transfer = null; // the region closes the file when released
        writeStall = newStallTimer();
        writeStall.unwritable(); // from now, each bit of progress re-arms it
        ctx.write(t.head(), ctx.voidPromise());
        ctx.write(new DefaultFileRegion(t.file(), slice.position(), slice.length()), ctx.newProgressivePromise())
                .addListener(new ChannelProgressiveFutureListener() {
                    @Override
                    public void operationProgressed(ChannelProgressiveFuture future, long progress, long total) {
                        if (writeStall != null) {
                            writeStall.unwritable();
                        }
                    }

                    @Override
                    public void operationComplete(ChannelProgressiveFuture future) {
                        // failures show as the connection closing; the region is released either way
                    }
                });
        ChannelFuture last = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        last.addListener(f -> {
            if (phase != Phase.SENDING) {
                return;
            }
            finish();
            if (!f.isSuccess() || closeAfter) {
                ctx.close();
            }
            side.exchangeDone(this, closeAfter || !f.isSuccess());
        });
    }

    /** Reads and writes pieces while the client connection takes them; the last piece ends the exchange. */
    private void pump() {
        if (pumping || phase != Phase.SENDING) {
            return;
        }
        pumping = true;
        try {
            while (transfer != null && ctx.channel().isWritable()) {
                if (!writeNext()) {
                    break;
                }
            }
            if (phase == Phase.SENDING && transfer != null && part == transfer.parts().size()) {
                complete();
            } else if (phase == Phase.SENDING) {
                ctx.flush();
            }
        } finally {
            pumping = false;
        }
    }

    /** Writes the next piece; false when the transfer could not go on (it was cut). */
    private boolean writeNext() {
        if (part == transfer.parts().size()) {
            return false;
        }
        Reply.Part p = transfer.parts().get(part);
        if (!prefixSent) {
            prefixSent = true;
            if (p.prefix().length > 0) {
                ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(p.prefix())), ctx.voidPromise());
                return true;
            }
        }
        long left = p.length() - sentOfPart;
        if (left == 0) {
            part++;
            sentOfPart = 0;
            prefixSent = false;
            return part < transfer.parts().size();
        }
        int size = (int) Math.min(CHUNK, left);
        ByteBuf buf = ctx.alloc().ioBuffer(size);
        try {
            int read = 0;
            while (read < size) {
                int n = buf.writeBytes(transfer.file(), p.position() + sentOfPart + read, size - read);
                if (n <= 0) {
                    throw new IOException("the file became shorter while it was being sent");
                }
                read += n;
            }
        } catch (IOException e) {
            buf.release();
            LOG.log(Level.INFO, "{0}: cannot read {1}: {2}", route.site().name(), request.uri(), e.getMessage());
            cut();
            return false;
        }
        sentOfPart += size;
        ctx.write(new DefaultHttpContent(buf), ctx.voidPromise());
        return true;
    }

    private void complete() {
        byte[] trailer = transfer.trailer();
        finish();
        LastHttpContent last = trailer.length == 0 ? LastHttpContent.EMPTY_LAST_CONTENT
                : new io.netty.handler.codec.http.DefaultLastHttpContent(Unpooled.wrappedBuffer(trailer));
        if (closeAfter) {
            ctx.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(last, ctx.voidPromise());
        }
        side.exchangeDone(this, closeAfter);
    }

    /** The one teardown: the file closed, the timer off. */
    private void finish() {
        phase = Phase.DONE;
        if (transfer != null) {
            transfer.close();
            transfer = null;
        }
        if (writeStall != null) {
            writeStall.cancel();
            writeStall = null;
        }
    }

    private void cut() {
        finish();
        side.abortConnection();
    }

    private WriteStallTimer newStallTimer() {
        return new WriteStallTimer(ctx.executor(), route.site().traffic().writeTimeout().toNanos(), () -> {
            if (phase == Phase.SENDING) {
                LOG.log(Level.DEBUG, "{0}: client stopped reading {1}; closing", route.site().name(), request.uri());
                cut();
            }
        });
    }

    @Override
    public void clientContent(HttpContent content) {
        content.release(); // a body sent with a GET is not wanted; the connection closes after the answer
    }

    @Override
    public void clientReadComplete() {
        // nothing to do: the request is answered whole from its head
    }

    @Override
    public void clientWritabilityChanged(boolean writable) {
        if (phase != Phase.SENDING || transfer == null) {
            return;
        }
        if (writable) {
            if (writeStall != null) {
                writeStall.writable();
            }
            pump();
        } else {
            if (writeStall == null) {
                writeStall = newStallTimer();
            }
            writeStall.unwritable();
        }
    }

    @Override
    public void clientClosed() {
        if (phase != Phase.DONE) {
            finish();
        }
    }

    @Override
    public void clientStalled() {
        // only a request with a body can stall, and this exchange does not wait for one
        if (phase == Phase.WAITING) {
            phase = Phase.DONE;
            side.abortConnection();
        }
    }

    @Override
    public void closeAfterResponse() {
        closeAfter = true;
    }

    @Override
    public boolean hasBody() {
        return shape.hasBody();
    }

    @Override
    public boolean requestReceived() {
        return !shape.hasBody();
    }

    @Override
    public boolean mayReadAhead() {
        return !shape.hasBody() && !closeAfter && phase != Phase.DONE;
    }

    @Override
    public boolean waitingOnClient() {
        return false;
    }

    @Override
    public long readTimeoutNanos() {
        return route.site().traffic().readTimeout().toNanos();
    }

    @Override
    public long keepAliveIdleNanos() {
        return route.site().traffic().keepAliveIdle().toNanos();
    }
}
