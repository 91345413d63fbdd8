package dev.usher.proxy;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.ArrayDeque;

/**
 * A client's request on its way to the backend connection of a {@link ProxyExchange}: how far it has gone
 * ({@link RequestPhase}), how much of it has come from the client, and the body pieces that wait while the head is
 * held back or no connection is there yet. The exchange feeds it the client's pieces and the ends of read batches,
 * and gives it the backend channel to write to.
 *
 * <p>Threading: the client's event loop, like its exchange.
 */
final class ForwardedRequest {
    private final HttpRequest head;
    private RequestPhase phase = RequestPhase.HELD;
    /** The client's whole request (head and body) has arrived. */
    private boolean received;
    private long bodyBytes;
    // The pieces waiting, oldest first. Most requests have one or two (a GET just its end marker): two fields cost
    // less than a queue and its array per request. Any more wait in `more`.
    private HttpContent first;
    private HttpContent second;
    private ArrayDeque<HttpContent> more;

    ForwardedRequest(HttpRequest head) {
        this.head = head;
    }

    RequestPhase phase() {
        return phase;
    }

    /** True once the client's whole request (head and body) has arrived. */
    boolean received() {
        return received;
    }

    /** True once the whole request has arrived and it had no body (or one of no bytes). */
    boolean bodiless() {
        return received && bodyBytes == 0;
    }

    /**
     * Counts a piece of the body from the client in: false when it makes the body larger than {@code maxBody}
     * (0: no limit), which the piece is then not part of.
     */
    boolean take(HttpContent content, long maxBody) {
        bodyBytes += content.content().readableBytes();
        if (maxBody > 0 && bodyBytes > maxBody) {
            return false;
        }
        if (content instanceof LastHttpContent) {
            received = true;
        }
        return true;
    }

    /** The client's read batch ended: the head no longer waits for it. */
    void readComplete() {
        if (phase == RequestPhase.HELD) {
            phase = RequestPhase.READY;
        }
    }

    /** Keeps a piece of the body until the head has gone ({@link #send}). */
    void hold(HttpContent content) {
        if (first == null) {
            first = content;
        } else if (second == null) {
            second = content;
        } else {
            if (more == null) {
                more = new ArrayDeque<>(4);
            }
            more.add(content);
        }
    }

    /**
     * Sends what may go to {@code backend}: the head once it is no longer held (and a read for the answer), then the
     * pieces that waited. True when the whole request has now gone.
     */
    boolean send(Channel backend) {
        if (phase == RequestPhase.HELD) {
            return false;
        }
        if (phase == RequestPhase.READY) {
            phase = RequestPhase.HEAD_SENT;
            backend.write(head, backend.voidPromise());
            backend.read();
        }
        boolean whole = false;
        HttpContent content;
        while ((content = poll()) != null) {
            whole |= write(content, backend);
        }
        backend.flush();
        return whole;
    }

    /** Writes a piece of the body to {@code backend}, once the head went; true when it was the last. */
    boolean write(HttpContent content, Channel backend) {
        backend.write(content, backend.voidPromise());
        if (content instanceof LastHttpContent) {
            phase = RequestPhase.SENT;
            backend.flush();
            return true;
        }
        return false;
    }

    /** The bodiless request goes again, on another connection: its head and its end. */
    void again() {
        phase = RequestPhase.READY;
        hold(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    /** Releases the pieces still waiting: the request goes no further. */
    void discard() {
        HttpContent content;
        while ((content = poll()) != null) {
            content.release();
        }
    }

    private HttpContent poll() {
        HttpContent next = first;
        if (next != null) {
            first = second;
            second = more == null ? null : more.poll();
        }
        return next;
    }
}
