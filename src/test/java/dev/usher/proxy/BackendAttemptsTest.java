package dev.usher.proxy;

import dev.usher.config.ConfigLoader;
import dev.usher.net.Transport;
import dev.usher.proxy.BackendAttempts.Retry;
import dev.usher.route.Route;
import dev.usher.route.RouteTable;
import dev.usher.rules.RuleServices;
import dev.usher.upstream.BackendStatus;
import dev.usher.upstream.UpstreamPools;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backends one request is tried on: in-flight counts, passive health, and what follows a backend closing before
 * it answered. No connection is made here (the exchange tests do that, {@link ExchangePhasesTest}).
 */
class BackendAttemptsTest {
    private final UpstreamPools pools = new UpstreamPools(Transport.nio());
    private final RuleServices services = new RuleServices();
    private RouteTable table;
    private Route route;

    @BeforeEach
    void setUp() throws Exception {
        table = RouteTable.compile(ConfigLoader.parse("""
                listen: {https: off}
                sites:
                  app.example.com: {to: [10.0.0.1:80, 10.0.0.2:80], policy: first}
                """, "attempts.yaml"), pools, services);
        route = table.lookup("app.example.com");
    }

    @AfterEach
    void tearDown() {
        table.close();
        services.close();
        pools.close();
    }

    private BackendAttempts attempts(HttpMethod method, boolean hasBody) {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, "/");
        return new BackendAttempts(null, route, null, request, RequestShape.of(hasBody), null);
    }

    private List<BackendStatus> status() {
        return route.upstreams().status();
    }

    @Test
    void anAttemptHoldsItsBackendsInFlightCountUntilItEnds() {
        BackendAttempts attempts = attempts(HttpMethod.GET, false);
        assertThat(attempts.pick()).isTrue();
        assertThat(attempts.backend().host()).isEqualTo("10.0.0.1");
        assertThat(status().get(0).inFlight()).isEqualTo(1);
        attempts.end();
        attempts.end();
        assertThat(status()).allSatisfy(s -> assertThat(s.inFlight()).isZero());
    }

    @Test
    void aBodilessIdempotentRequestGoesOnceMoreToTheSameBackendAfterAStaleKeepAlive() {
        BackendAttempts attempts = attempts(HttpMethod.GET, false);
        attempts.pick();
        assertThat(attempts.closedBeforeAnswer(true, true)).isEqualTo(Retry.SAME_BACKEND);
        assertThat(status().get(0).consecutiveFailures()).as("a stale keep-alive says nothing").isZero();
        assertThat(status().get(0).inFlight()).as("still the same attempt").isEqualTo(1);

        assertThat(attempts.closedBeforeAnswer(true, true)).as("only once; then another backend")
                .isEqualTo(Retry.ELSEWHERE);
        assertThat(attempts.backend().host()).isEqualTo("10.0.0.2");
        assertThat(status().get(0).consecutiveFailures()).isEqualTo(1);
        assertThat(status().get(0).inFlight()).isZero();
        assertThat(status().get(1).inFlight()).isEqualTo(1);

        assertThat(attempts.closedBeforeAnswer(false, true)).as("every backend tried").isEqualTo(Retry.NONE);
        assertThat(status().get(1).consecutiveFailures()).isEqualTo(1);
        assertThat(status()).allSatisfy(s -> assertThat(s.inFlight()).isZero());
        attempts.end();
        assertThat(status()).allSatisfy(s -> assertThat(s.inFlight()).isZero());
    }

    @Test
    void aRequestWithABodyIsNeverSentAgain() {
        // an idempotent PUT whose body had bytes: the exchange says it was not sent bodiless
        BackendAttempts reused = attempts(HttpMethod.PUT, true);
        reused.pick();
        assertThat(reused.closedBeforeAnswer(true, false)).isEqualTo(Retry.NONE);
        assertThat(status().get(0).consecutiveFailures()).as("on a reused connection: not counted").isZero();
        reused.end();

        BackendAttempts fresh = attempts(HttpMethod.POST, true);
        fresh.pick();
        assertThat(fresh.closedBeforeAnswer(false, true)).as("a POST, even without bytes").isEqualTo(Retry.NONE);
        assertThat(status().get(0).consecutiveFailures()).as("a fresh connection closing counts").isEqualTo(1);
        fresh.end();
    }

    @Test
    void aGetWhoseAnnouncedBodyWasEmptyMayBeSentAgain() {
        // HTTP/2 and HTTP/3 clients may end a GET's stream in a frame of its own: announced as a body, none came
        BackendAttempts attempts = attempts(HttpMethod.GET, true);
        attempts.pick();
        assertThat(attempts.mayResend(true)).isTrue();
        assertThat(attempts.closedBeforeAnswer(true, true)).isEqualTo(Retry.SAME_BACKEND);
        attempts.end();
    }

    @Test
    void aRequestNotSentInFullIsNotSentAgain() {
        BackendAttempts attempts = attempts(HttpMethod.GET, false);
        attempts.pick();
        assertThat(attempts.closedBeforeAnswer(true, false)).isEqualTo(Retry.NONE);
        attempts.end();
    }

    @Test
    void aPostWithAnIdempotencyKeyAndNoBodyMayBeSentAgain() {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/");
        request.headers().set("Idempotency-Key", "8e03978e-40d5-43e8-bc93-6894a57f9324");
        BackendAttempts attempts = new BackendAttempts(null, route, null, request, RequestShape.of(false), null);
        attempts.pick();
        assertThat(attempts.closedBeforeAnswer(true, true)).isEqualTo(Retry.SAME_BACKEND);
        BackendAttempts plain = attempts(HttpMethod.POST, false);
        plain.pick();
        assertThat(plain.closedBeforeAnswer(true, true)).isEqualTo(Retry.NONE);
    }

    @Test
    void anAnswerClearsTheBackendsFailures() {
        BackendAttempts first = attempts(HttpMethod.GET, false);
        first.pick();
        first.timedOut();
        assertThat(status().get(0).consecutiveFailures()).isEqualTo(1);
        first.end();
        BackendAttempts second = attempts(HttpMethod.GET, false);
        second.pick();
        second.answered();
        assertThat(status().get(0).consecutiveFailures()).isZero();
        second.end();
    }
}
