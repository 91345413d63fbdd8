package dev.usher.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A request's way to the backend: its phases, the pieces that wait for the head, and the body limit. */
class ForwardedRequestTest {
    private final HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/up");
    private final EmbeddedChannel backend = new EmbeddedChannel();

    private static HttpContent piece(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    private static LastHttpContent last(String text) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    /** What reached the backend channel, in order: "HEAD" for the request head, else each piece's text. */
    private List<String> written() {
        List<String> out = new ArrayList<>();
        Object msg;
        while ((msg = backend.readOutbound()) != null) {
            if (msg instanceof HttpRequest) {
                out.add("HEAD");
            } else if (msg instanceof HttpContent content) {
                out.add(content.content().toString(StandardCharsets.US_ASCII) + (msg instanceof LastHttpContent ? "|" : ""));
                content.release();
            }
        }
        return out;
    }

    @Test
    void theHeadWaitsForTheEndOfTheReadBatchAndThePiecesForTheHead() {
        ForwardedRequest request = new ForwardedRequest(head);
        assertThat(request.phase()).isEqualTo(RequestPhase.HELD);
        request.hold(piece("a"));
        assertThat(request.send(backend)).isFalse();
        assertThat(written()).as("held: nothing goes").isEmpty();

        request.readComplete();
        assertThat(request.phase()).isEqualTo(RequestPhase.READY);
        assertThat(request.send(backend)).isFalse();
        assertThat(request.phase()).isEqualTo(RequestPhase.HEAD_SENT);
        assertThat(written()).containsExactly("HEAD", "a");

        assertThat(request.write(last("b"), backend)).as("the last piece").isTrue();
        assertThat(request.phase()).isEqualTo(RequestPhase.SENT);
        assertThat(written()).containsExactly("b|");
    }

    @Test
    void anyNumberOfWaitingPiecesGoInOrder() {
        ForwardedRequest request = new ForwardedRequest(head);
        for (int i = 0; i < 7; i++) {
            request.hold(piece(Integer.toString(i)));
        }
        request.hold(last("end"));
        request.readComplete();
        assertThat(request.send(backend)).as("the whole request went").isTrue();
        assertThat(written()).containsExactly("HEAD", "0", "1", "2", "3", "4", "5", "6", "end|");
        request.readComplete();
        assertThat(request.phase()).as("a later read batch changes nothing").isEqualTo(RequestPhase.SENT);
    }

    @Test
    void piecesHeldWhileOthersAreSentKeepTheirOrder() {
        ForwardedRequest request = new ForwardedRequest(head);
        request.readComplete();
        request.hold(piece("1"));
        request.hold(piece("2"));
        request.hold(piece("3"));
        request.send(backend);
        request.hold(piece("4"));
        request.hold(piece("5"));
        request.hold(piece("6"));
        request.send(backend);
        assertThat(written()).containsExactly("HEAD", "1", "2", "3", "4", "5", "6");
    }

    @Test
    void discardReleasesEveryWaitingPiece() {
        ForwardedRequest request = new ForwardedRequest(head);
        List<ByteBuf> bufs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            HttpContent p = piece("x" + i);
            bufs.add(p.content());
            request.hold(p);
        }
        request.discard();
        assertThat(bufs).allSatisfy(b -> assertThat(b.refCnt()).isZero());
        request.readComplete();
        request.send(backend);
        assertThat(written()).as("only the head: nothing is left").containsExactly("HEAD");
    }

    @Test
    void theBodyLimitCountsEveryPiece() {
        ForwardedRequest request = new ForwardedRequest(head);
        HttpContent a = piece("12345");
        assertThat(request.take(a, 8)).isTrue();
        assertThat(request.received()).isFalse();
        LastHttpContent b = last("6789");
        assertThat(request.take(b, 8)).as("9 bytes > 8").isFalse();
        assertThat(request.received()).as("a refused end is not an end").isFalse();
        a.release();
        b.release();

        ForwardedRequest unlimited = new ForwardedRequest(head);
        LastHttpContent whole = last("x".repeat(10_000));
        assertThat(unlimited.take(whole, 0)).isTrue();
        assertThat(unlimited.received()).isTrue();
        assertThat(unlimited.bodiless()).isFalse();
        whole.release();
    }

    @Test
    void aRequestIsBodilessOnceItsEmptyEndArrived() {
        ForwardedRequest request = new ForwardedRequest(head);
        assertThat(request.bodiless()).as("not all in yet").isFalse();
        HttpContent empty = piece("");
        assertThat(request.take(empty, 0)).isTrue();
        empty.release();
        assertThat(request.take(LastHttpContent.EMPTY_LAST_CONTENT, 0)).isTrue();
        assertThat(request.bodiless()).as("an empty DATA frame, then the stream's end").isTrue();
    }

    @Test
    void aRequestSentAgainGoesWithItsHeadAndItsEnd() {
        ForwardedRequest request = new ForwardedRequest(head);
        request.hold(LastHttpContent.EMPTY_LAST_CONTENT);
        request.readComplete();
        assertThat(request.send(backend)).isTrue();
        assertThat(written()).containsExactly("HEAD", "|");

        request.again();
        assertThat(request.phase()).isEqualTo(RequestPhase.READY);
        assertThat(request.send(backend)).isTrue();
        assertThat(written()).containsExactly("HEAD", "|");
    }
}
