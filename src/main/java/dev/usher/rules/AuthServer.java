package dev.usher.rules;

import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.concurrent.Future;

/**
 * Where a forward-auth check sends its question: the auth server, reached through the same keep-alive connection
 * pools as backends (the route layer provides it). Never blocks.
 */
public interface AuthServer {
    /**
     * Sends {@code request} (which the callee then owns) from {@code loop}. The future completes on {@code loop}
     * with the server's whole answer (which the caller then owns), or fails with an {@link Unavailable}.
     */
    Future<FullHttpResponse> ask(FullHttpRequest request, EventLoop loop);

    /** The auth server could not be asked or did not answer properly: never a reason to let a request through. */
    final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean timedOut;

        /** @param timedOut it did not answer in time (504), rather than being unreachable or answering badly (502) */
        public Unavailable(String message, boolean timedOut) {
            super(message, null, false, false);
            this.timedOut = timedOut;
        }

        public boolean timedOut() {
            return timedOut;
        }
    }
}
