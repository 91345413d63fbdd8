package dev.usher.rules;

import static dev.usher.rules.Sites.access;
import static dev.usher.rules.Sites.cidrs;
import static dev.usher.rules.Sites.get;
import static dev.usher.rules.Sites.ip;
import static dev.usher.rules.Sites.site;
import static dev.usher.rules.Sites.withAccess;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

class TrustAndLimitsHardeningTest {
    private static final String ALICE_HASH =
            OpenBSDBCrypt.generate("2y", "wonderland".toCharArray(), new byte[16], 4);
    private final Sites.ManualClock clock = new Sites.ManualClock();
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final RuleServices services = new RuleServices(clock::nanoTime, PasswordVerifier.defaultPool());

    @AfterEach
    void close() throws InterruptedException {
        services.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static HttpRequest request(String user, String password) {
        HttpRequest request = get("/", "secret.example");
        request.headers().set("authorization", "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        return request;
    }

    /** Behind a trusted load balancer that appends to X-Forwarded-For, a client cannot pick its address via CF-Connecting-IP. */
    @Test
    void cfConnectingIpFromBehindAGenericTrustedProxyIsBelieved() {
        ClientAddresses behindLb = new ClientAddresses(cidrs("10.0.0.0/8"));
        var headers = new io.netty.handler.codec.http.DefaultHttpHeaders();
        headers.add("cf-connecting-ip", "192.0.2.1");            // written by the attacker
        headers.add("x-forwarded-for", "198.51.100.66");         // appended by the LB: the real client
        InetAddress resolved = behindLb.resolve(ip("10.0.0.2"), headers);
        assertThat(resolved).as("the right-most untrusted XFF hop is the real client").isEqualTo(ip("198.51.100.66"));
    }

    /** Addresses of one IPv6 /64 share one login-attempt budget. */
    @Test
    void ipv6AddressesOfOneSlash64ShareTheAttemptBudget() throws Exception {
        SiteRules rules = SiteRules.compile(site("secret.example",
                withAccess(access(List.of(), List.of(), Map.of("alice", ALICE_HASH)))), List.of(), services);
        HttpResponseStatus last = null;
        for (int i = 0; i <= BasicAuth.ATTEMPTS_PER_MINUTE + 5; i++) {
            InetAddress client = ip("2001:db8:1:2::" + Integer.toHexString(i + 1));
            FullHttpResponse r = rules.checkAsync(request("alice", "guess" + i), client, "https", true, loop)
                    .get(10, TimeUnit.SECONDS);
            last = r.status();
        }
        assertThat(last).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
    }
}
