package dev.usher.whoami;

import io.netty.handler.codec.http.HttpContent;

/**
 * The answer to one HTTP request, created when its head has arrived (and any {@code ?wait=} has elapsed).
 * {@link WhoamiHandler} feeds it the request body and reads more of it only while {@link #wantsContent()} says so.
 * When the response is completely written the exchange calls {@link ExchangeContext#done()}, which must happen only
 * after the request's last content has been delivered.
 *
 * <p>Threading: every method runs on the connection's event loop.
 */
interface Exchange {

    /** One part of the request body, the {@code LastHttpContent} included; the exchange owns (and releases) it. */
    void content(HttpContent content);

    /** Whether the exchange can take another part of the request body now (backpressure). */
    default boolean wantsContent() {
        return true;
    }

    /** The channel's writability changed; streaming exchanges resume writing here. */
    default void writabilityChanged() {
    }
}
