package dev.usher.rules;

import static dev.usher.rules.Sites.access;
import static dev.usher.rules.Sites.get;
import static dev.usher.rules.Sites.ip;
import static dev.usher.rules.Sites.site;
import static dev.usher.rules.Sites.withAccess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.DefaultEventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.Future;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

class BasicAuthTest {
    /** Cost 4 keeps the real bcrypt runs in these tests to about a millisecond each. */
    private static final String ALICE_HASH =
            OpenBSDBCrypt.generate("2y", "wonderland".toCharArray(), new byte[16], 4);
    private static final InetAddress CLIENT = ip("203.0.113.10");

    private final Sites.ManualClock clock = new Sites.ManualClock();
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private RuleServices services = new RuleServices(clock::nanoTime, PasswordVerifier.defaultPool());

    @AfterEach
    void close() throws InterruptedException {
        services.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private SiteRules protectedSite() {
        return SiteRules.compile(site("secret.example",
                withAccess(access(List.of(), List.of(), Map.of("alice", ALICE_HASH)))), List.of(), services);
    }

    private static HttpRequest request(String user, String password) {
        HttpRequest request = get("/", "secret.example");
        if (user != null) {
            String token = Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
            request.headers().set("authorization", "Basic " + token);
        }
        return request;
    }

    private FullHttpResponse await(Future<FullHttpResponse> future) throws Exception {
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        future.addListener(done -> onLoop.complete(loop.inEventLoop()));
        FullHttpResponse response = future.get(10, TimeUnit.SECONDS);
        assertThat(onLoop.get(10, TimeUnit.SECONDS)).as("completes on the event loop").isTrue();
        return response;
    }

    private FullHttpResponse attempt(SiteRules rules, HttpRequest request, InetAddress client) throws Exception {
        return await(rules.checkAsync(request, client, "https", true, loop));
    }

    @Test
    void theRightPasswordPasses() throws Exception {
        SiteRules rules = protectedSite();

        assertThat(rules.needsAsync()).isTrue();
        assertThat(attempt(rules, request("alice", "wonderland"), CLIENT)).isNull();
        assertThat(services.verifier.verifications()).isEqualTo(1);
    }

    @Test
    void aWrongPasswordGets401WithTheSiteAsRealm() throws Exception {
        FullHttpResponse response = attempt(protectedSite(), request("alice", "looking-glass"), CLIENT);

        assertThat(response.status()).isEqualTo(HttpResponseStatus.UNAUTHORIZED);
        assertThat(response.headers().get("www-authenticate"))
                .isEqualTo("Basic realm=\"secret.example\", charset=\"UTF-8\"");
        assertThat(response.content().toString(StandardCharsets.UTF_8)).contains("401 Unauthorized");
    }

    @Test
    void missingOrMalformedCredentialsGet401WithoutRunningBcrypt() throws Exception {
        SiteRules rules = protectedSite();
        HttpRequest notBasic = get("/", "secret.example");
        notBasic.headers().set("authorization", "Bearer abc");
        HttpRequest notBase64 = get("/", "secret.example");
        notBase64.headers().set("authorization", "Basic !!!");

        for (HttpRequest request : List.of(request(null, null), notBasic, notBase64)) {
            Future<FullHttpResponse> future = rules.checkAsync(request, CLIENT, "https", true, loop);
            assertThat(future.isDone()).isTrue();
            assertThat(await(future).status()).isEqualTo(HttpResponseStatus.UNAUTHORIZED);
        }
        assertThat(services.verifier.verifications()).isZero();
    }

    @Test
    void anUnknownUserIsRefusedAfterTheSameWorkAsAKnownOne() throws Exception {
        FullHttpResponse response = attempt(protectedSite(), request("mallory", "wonderland"), CLIENT);

        assertThat(response.status()).isEqualTo(HttpResponseStatus.UNAUTHORIZED);
        assertThat(services.verifier.verifications()).isEqualTo(1);
    }

    @Test
    void aVerifiedPasswordIsAnsweredInlineFromTheCacheForTenMinutes() throws Exception {
        SiteRules rules = protectedSite();
        assertThat(attempt(rules, request("alice", "wonderland"), CLIENT)).isNull();

        Future<FullHttpResponse> second = rules.checkAsync(request("alice", "wonderland"), ip("192.0.2.1"),
                "https", true, loop);
        assertThat(second.isDone()).isTrue();
        assertThat(await(second)).isNull();
        assertThat(services.verifier.verifications()).isEqualTo(1);

        // Recompiling (a reload) keeps the cache: the key is the hash, not the compiled site.
        assertThat(protectedSite().checkAsync(request("alice", "wonderland"), CLIENT, "https", true, loop)
                .isDone()).isTrue();

        clock.advance(Duration.ofMinutes(10).plusSeconds(1));
        assertThat(attempt(rules, request("alice", "wonderland"), CLIENT)).isNull();
        assertThat(services.verifier.verifications()).isEqualTo(2);
    }

    @Test
    void aWrongPasswordIsNotCached() throws Exception {
        SiteRules rules = protectedSite();
        attempt(rules, request("alice", "nope"), CLIENT);
        attempt(rules, request("alice", "nope"), CLIENT);

        assertThat(services.verifier.verifications()).isEqualTo(2);
    }

    @Test
    void tooManyAttemptsFromOneAddressGet429WithoutRunningBcrypt() throws Exception {
        SiteRules rules = protectedSite();
        for (int i = 0; i < BasicAuth.ATTEMPTS_PER_MINUTE; i++) {
            assertThat(attempt(rules, request("alice", "guess" + i), CLIENT).status())
                    .isEqualTo(HttpResponseStatus.UNAUTHORIZED);
        }

        FullHttpResponse locked = attempt(rules, request("alice", "wonderland"), CLIENT);

        assertThat(locked.status()).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
        assertThat(locked.headers().getInt("retry-after")).isBetween(1, 6);
        assertThat(services.verifier.verifications()).isEqualTo(BasicAuth.ATTEMPTS_PER_MINUTE);
        // Another address is not affected, and the locked-out one gets an attempt back after 6 s.
        assertThat(attempt(rules, request("alice", "wonderland"), ip("192.0.2.1"))).isNull();
        clock.advance(Duration.ofSeconds(6));
        assertThat(attempt(rules, request("alice", "guess"), CLIENT).status())
                .isEqualTo(HttpResponseStatus.UNAUTHORIZED);
        assertThat(attempt(rules, request("alice", "guess2"), CLIENT).status())
                .isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
    }

    @Test
    void successfulLoginsDoNotUseUpTheAttemptBudget() throws Exception {
        SiteRules rules = protectedSite();
        int logins = BasicAuth.ATTEMPTS_PER_MINUTE + 2;
        Map<String, String> users = new HashMap<>();
        for (int i = 0; i < logins; i++) {
            users.put("user" + i, OpenBSDBCrypt.generate("2y", ("pw" + i).toCharArray(), new byte[16], 4));
        }
        SiteRules office = SiteRules.compile(site("office.example",
                withAccess(access(List.of(), List.of(), users))), List.of(), services);

        for (int i = 0; i < logins; i++) {
            assertThat(attempt(office, request("user" + i, "pw" + i), CLIENT)).as("user %d", i).isNull();
        }
        assertThat(attempt(rules, request("alice", "wrong"), CLIENT).status())
                .isEqualTo(HttpResponseStatus.UNAUTHORIZED);
    }

    @Test
    void aSaturatedPasswordCheckerAnswers503() throws Exception {
        services.close();
        ExecutorService stopped = Executors.newSingleThreadExecutor();
        stopped.shutdown();
        services = new RuleServices(clock::nanoTime, stopped);

        FullHttpResponse response = attempt(protectedSite(), request("alice", "wonderland"), CLIENT);

        assertThat(response.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
        assertThat(response.headers().get("retry-after")).isEqualTo("1");
    }

    @Test
    void accessListsAreCheckedBeforeThePassword() throws Exception {
        SiteRules rules = SiteRules.compile(site("secret.example",
                withAccess(access(List.of(), List.of("203.0.113.0/24"), Map.of("alice", ALICE_HASH)))), List.of(),
                services);

        Future<FullHttpResponse> future = rules.checkAsync(request("alice", "wonderland"), CLIENT, "https", true,
                loop);

        assertThat(future.isDone()).isTrue();
        assertThat(await(future).status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
        assertThat(services.verifier.verifications()).isZero();
    }

    @Test
    void checkRefusesASiteWithBasicAuthAndCheckAsyncServesOneWithout() throws Exception {
        assertThatThrownBy(() -> protectedSite().check(request(null, null), CLIENT, "https", true))
                .isInstanceOf(IllegalStateException.class);

        SiteRules open = SiteRules.compile(site("open.example", Sites.traffic()), List.of(), services);
        Future<FullHttpResponse> future = open.checkAsync(get("/", "open.example"), CLIENT, "https", true, loop);
        assertThat(future.isDone()).isTrue();
        assertThat(await(future)).isNull();
    }

    @Test
    void keysAreCheckedWithTheBasicSchemeInAnyCase() throws Exception {
        HttpRequest request = request("alice", "wonderland");
        request.headers().set("authorization", "basic  " + request.headers().get("authorization").substring(6));

        assertThat(attempt(protectedSite(), request, CLIENT)).isNull();
    }

    @Test
    void simultaneousChecksOfTheSameCredentialsShareOneBcryptRun() throws Exception {
        HeldTasks pool = new HeldTasks();
        services.close();
        services = new RuleServices(clock::nanoTime, pool);
        SiteRules rules = protectedSite();

        Future<FullHttpResponse> first = rules.checkAsync(request("alice", "wonderland"), CLIENT, "https", true, loop);
        Future<FullHttpResponse> second = rules.checkAsync(request("alice", "wonderland"), CLIENT, "https", true,
                loop);
        assertThat(first.isDone()).isFalse();
        assertThat(second.isDone()).isFalse();
        assertThat(pool.tasks).hasSize(1);

        pool.tasks.remove(0).run();

        assertThat(await(first)).isNull();
        assertThat(await(second)).isNull();
        assertThat(services.verifier.verifications()).isEqualTo(1);
    }

    /** An executor that runs nothing until the test says so. */
    private static final class HeldTasks extends AbstractExecutorService {
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
