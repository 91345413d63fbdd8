package dev.usher.rules;

import static dev.usher.rules.Sites.get;
import static dev.usher.rules.Sites.ip;
import static dev.usher.rules.Sites.site;
import static dev.usher.rules.Sites.withRateLimit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.config.RateLimit;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

class RateLimitTest {
    private final Sites.ManualClock clock = new Sites.ManualClock();
    private final RuleServices services = new RuleServices(clock::nanoTime, PasswordVerifier.defaultPool());

    @AfterEach
    void close() {
        services.close();
    }

    private SiteRules limited(String name, int requests, Duration per, int burst) {
        return SiteRules.compile(site(name, withRateLimit(new RateLimit(requests, per, burst))), List.of(),
                services);
    }

    private static FullHttpResponse check(SiteRules rules, InetAddress client) {
        return rules.check(get("/", "a.example"), client, "https", true);
    }

    @Test
    void allowsBurstAtOnceThenAnswers429WithRetryAfter() {
        SiteRules rules = limited("a.example", 10, Duration.ofSeconds(1), 5);
        InetAddress client = ip("203.0.113.1");

        for (int i = 0; i < 5; i++) {
            assertThat(check(rules, client)).as("request %d", i + 1).isNull();
        }
        FullHttpResponse refused = check(rules, client);

        assertThat(refused.status()).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
        assertThat(refused.headers().get("retry-after")).isEqualTo("1");
    }

    @Test
    void withoutBurstTheBucketHoldsTheWholeAllowance() {
        SiteRules rules = limited("a.example", 5, Duration.ofMinutes(1), 0);
        InetAddress client = ip("203.0.113.1");
        for (int i = 0; i < 5; i++) {
            assertThat(check(rules, client)).as("request %d", i + 1).isNull();
        }
        assertThat(check(rules, client).headers().get("retry-after")).isEqualTo("12");
    }

    @Test
    void refillsOneTokenPerInterval() {
        SiteRules rules = limited("a.example", 10, Duration.ofSeconds(1), 1);
        InetAddress client = ip("203.0.113.1");
        assertThat(check(rules, client)).isNull();
        assertThat(check(rules, client)).isNotNull();

        clock.advance(Duration.ofMillis(99));
        assertThat(check(rules, client)).isNotNull();
        clock.advance(Duration.ofMillis(1));
        assertThat(check(rules, client)).isNull();
        assertThat(check(rules, client)).isNotNull();

        clock.advance(Duration.ofSeconds(10));
        assertThat(check(rules, client)).isNull();
    }

    @Test
    void retryAfterSaysHowLongUntilTheNextToken() {
        SiteRules rules = limited("a.example", 1, Duration.ofMinutes(1), 0);
        InetAddress client = ip("2001:db8::5");
        assertThat(check(rules, client)).isNull();

        assertThat(check(rules, client).headers().get("retry-after")).isEqualTo("60");
        clock.advance(Duration.ofMillis(30_500));
        assertThat(check(rules, client).headers().get("retry-after")).isEqualTo("30");
        clock.advance(Duration.ofMillis(29_400));
        assertThat(check(rules, client).headers().get("retry-after")).isEqualTo("1");
    }

    @Test
    void eachClientAndEachSiteHasItsOwnBucket() {
        SiteRules a = limited("a.example", 1, Duration.ofMinutes(1), 0);
        SiteRules b = limited("b.example", 1, Duration.ofMinutes(1), 0);
        assertThat(check(a, ip("203.0.113.1"))).isNull();
        assertThat(check(a, ip("203.0.113.1"))).isNotNull();

        assertThat(check(a, ip("203.0.113.2"))).isNull();
        assertThat(check(b, ip("203.0.113.1"))).isNull();
    }

    @Test
    void aReloadDoesNotForgiveAClientOverItsLimit() {
        InetAddress client = ip("203.0.113.1");
        assertThat(check(limited("a.example", 1, Duration.ofMinutes(1), 0), client)).isNull();

        SiteRules reloaded = limited("a.example", 1, Duration.ofMinutes(1), 0);

        assertThat(check(reloaded, client)).isNotNull();
    }

    @Test
    void memoryStaysFixedWhateverTheNumberOfClients() throws UnknownHostException {
        SiteRules rules = limited("a.example", 1, Duration.ofHours(1), 0);
        int capacity = services.rateBuckets.capacity();

        InetAddress last = null;
        for (int i = 0; i < 100_000; i++) {
            last = InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i});
            assertThat(check(rules, last)).isNull();
        }

        assertThat(services.rateBuckets.capacity()).isEqualTo(capacity).isEqualTo(RuleServices.RATE_SLOTS);
        assertThat(services.rateBuckets.occupied()).isLessThanOrEqualTo(capacity);
        // The newest entries are the last to be evicted: the latest client is still held to its limit.
        assertThat(check(rules, last)).isNotNull();
    }

    @Test
    void aNewcomerTakesTheSlotOfARefilledBucketNotOfAClientOverItsLimit() {
        TokenBuckets table = new TokenBuckets(TokenBuckets.WAYS, 42);
        long slow = 1_000_000;
        long fast = 10;
        for (int i = 0; i < TokenBuckets.WAYS - 1; i++) {
            assertThat(table.take(1, 0, i, 0, slow, 0)).isZero();
        }
        assertThat(table.take(1, 0, 99, 0, fast, 0)).isZero();

        long later = 100;
        assertThat(table.take(1, 0, 100, later, fast, 0)).isZero();

        for (int i = 0; i < TokenBuckets.WAYS - 1; i++) {
            assertThat(table.take(1, 0, i, later, slow, 0)).as("client %d", i).isPositive();
        }
        assertThat(table.take(1, 0, 100, later, fast, 0)).isPositive();
        assertThat(table.occupied()).isEqualTo(TokenBuckets.WAYS);
    }
}
