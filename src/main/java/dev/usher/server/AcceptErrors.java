package dev.usher.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Failures to accept a connection, on a listening socket's own pipeline. The usual one is running out of
 * descriptors (EMFILE for the process, ENFILE for the whole system): the pending connection stays in the kernel's
 * queue and the socket stays readable, so accepting again at once fails again in a tight loop. Netty would pause for
 * a second and report each failure as an unhandled exception with its stack trace. Here accepting pauses for
 * {@link #PAUSE_MILLIS} (connections closing in the meantime free descriptors; clients wait in the queue rather
 * than being refused), and one line says what happened and what to raise, at most once every
 * {@link #LOG_EVERY_NANOS}, with the count of failures since. One instance per listener.
 */
final class AcceptErrors extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(AcceptErrors.class.getName());
    static final long PAUSE_MILLIS = 100;
    static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final String listener;
    private final OpenFileLimit limit;
    /** Touched on the listener's event loop only. */
    private long lastLogNanos;
    private boolean loggedOnce;
    private long failuresSinceLog;
    private boolean paused;

    AcceptErrors(String listener, OpenFileLimit limit) {
        this.listener = listener;
        this.limit = limit;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof IOException)) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        failuresSinceLog++;
        long now = System.nanoTime();
        if (!loggedOnce || now - lastLogNanos >= LOG_EVERY_NANOS) {
            LOG.log(Level.WARNING, describe(cause.getMessage()) + " (" + failuresSinceLog + " failed accept"
                    + (failuresSinceLog == 1 ? "" : "s") + " since the last such line; accepting pauses "
                    + PAUSE_MILLIS + " ms after each)");
            loggedOnce = true;
            lastLogNanos = now;
            failuresSinceLog = 0;
        }
        pause(ctx);
    }

    /** Stops accepting for a moment; only a listener that was accepting (not one bound paused) gets here. */
    private void pause(ChannelHandlerContext ctx) {
        if (paused) {
            return;
        }
        paused = true;
        ctx.channel().config().setAutoRead(false);
        ctx.channel().eventLoop().schedule(() -> {
            paused = false;
            if (ctx.channel().isOpen()) {
                ctx.channel().config().setAutoRead(true);
            }
        }, PAUSE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** One line for the failure: for running out of descriptors, the limit and what to raise. */
    String describe(String message) {
        String text = String.valueOf(message);
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("in system") || lower.contains("enfile")) {
            return "cannot accept connections on " + listener + ": the system's table of open files is full"
                    + " (ENFILE; raise fs.file-max or find what holds the files)";
        }
        if (lower.contains("too many open files") || lower.contains("emfile")) {
            return "cannot accept connections on " + listener + ": the process has reached its limit of "
                    + limit.max() + " open files (EMFILE). Raise it (ulimit -n; systemd: LimitNOFILE=65536) or"
                    + " lower limits.connections (the limit holds about " + limit.connectionsHeld()
                    + " proxied connections)";
        }
        return "cannot accept connections on " + listener + ": " + text;
    }
}
