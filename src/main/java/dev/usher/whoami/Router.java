package dev.usher.whoami;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.function.Function;

/**
 * Picks the answer for a request head: websocket upgrade on any path, {@code /health}, {@code /status/NNN},
 * {@code /data?size=N}, {@code /echo}, else the whoami text. {@code ?wait=DURATION} on any path delays the whole
 * exchange. Stateless.
 */
final class Router {
    private Router() {
    }

    /**
     * What to do for one request.
     *
     * @param delayNanos how long to wait before starting the exchange (0 = at once)
     * @param exchange   creates the exchange once the delay has passed
     */
    record Plan(long delayNanos, Function<ExchangeContext, Exchange> exchange) {
    }

    static Plan plan(HttpRequest request) {
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        long delay;
        try {
            String wait = param(query, "wait");
            delay = wait == null ? 0 : Quantities.parseDurationNanos(wait);
        } catch (IllegalArgumentException e) {
            return now(badRequest("wait: " + e.getMessage()));
        }
        return new Plan(delay, exchange(request, query));
    }

    private static Function<ExchangeContext, Exchange> exchange(HttpRequest request, QueryStringDecoder query) {
        if (WebsocketUpgrade.isUpgrade(request)) {
            return WebsocketUpgrade::new;
        }
        String path = query.path();
        return switch (path) {
            case "/health" -> c -> FixedResponse.text(c, HttpResponseStatus.OK, "ok\n");
            case "/echo" -> EchoExchange::new;
            case "/data" -> data(query);
            default -> path.startsWith("/status/") ? status(path.substring("/status/".length())) : Router::whoami;
        };
    }

    private static Exchange whoami(ExchangeContext c) {
        byte[] text = WhoamiText.render(c.identity(), c.channel().remoteAddress(), c.request());
        return new FixedResponse(c, HttpResponseStatus.OK, FixedResponse.TEXT_PLAIN, text);
    }

    private static Function<ExchangeContext, Exchange> data(QueryStringDecoder query) {
        String size = param(query, "size");
        if (size == null) {
            return badRequest("/data needs ?size=N (for example 1024, 64KiB or 50MiB)");
        }
        try {
            long bytes = Quantities.parseSize(size);
            return c -> new DataStreamer(c, bytes);
        } catch (IllegalArgumentException e) {
            return badRequest("size: " + e.getMessage());
        }
    }

    private static Function<ExchangeContext, Exchange> status(String code) {
        int status;
        try {
            status = Integer.parseInt(code);
        } catch (NumberFormatException e) {
            status = -1;
        }
        if (status < 200 || status > 599) {
            return badRequest("/status/NNN needs a status code from 200 to 599, not '" + code + "'");
        }
        HttpResponseStatus s = HttpResponseStatus.valueOf(status);
        return c -> FixedResponse.text(c, s, s + "\n");
    }

    private static Function<ExchangeContext, Exchange> badRequest(String message) {
        return c -> FixedResponse.text(c, HttpResponseStatus.BAD_REQUEST, message + "\n");
    }

    private static Plan now(Function<ExchangeContext, Exchange> exchange) {
        return new Plan(0, exchange);
    }

    private static String param(QueryStringDecoder query, String name) {
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
