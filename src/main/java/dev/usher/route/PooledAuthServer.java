package dev.usher.route;

import dev.usher.config.ForwardAuth;
import dev.usher.rules.AuthServer;
import dev.usher.upstream.UpstreamCall;
import dev.usher.upstream.UpstreamPool;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import java.time.Duration;

/**
 * A site's forward-auth server reached through the shared keep-alive pool of its address (the same pools as
 * backends, so a server that is also a site's backend shares its warm connections): each question is one
 * {@link UpstreamCall}, bounded by the setting's timeout and a 64 KiB answer.
 */
final class PooledAuthServer implements AuthServer {
    static final int MAX_ANSWER = 64 * 1024;

    private final UpstreamPool pool;
    private final Duration connectTimeout;
    private final Duration timeout;

    PooledAuthServer(UpstreamPool pool, Duration connectTimeout, ForwardAuth settings) {
        this.pool = pool;
        this.connectTimeout = connectTimeout;
        this.timeout = settings.timeout();
    }

    @Override
    public Future<FullHttpResponse> ask(FullHttpRequest request, EventLoop loop) {
        Future<FullHttpResponse> call = UpstreamCall.send(pool, loop, request, connectTimeout, timeout, MAX_ANSWER);
        if (call.isDone() && call.isSuccess()) {
            return call;
        }
        Promise<FullHttpResponse> answer = loop.newPromise();
        call.addListener(f -> {
            if (f.isSuccess()) {
                answer.trySuccess(call.getNow());
            } else {
                boolean timedOut = f.cause() instanceof UpstreamCall.Failed failed && failed.timedOut();
                answer.tryFailure(new Unavailable(f.cause().getMessage(), timedOut));
            }
        });
        return answer;
    }
}
