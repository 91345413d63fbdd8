package dev.usher.rules;

import static dev.usher.rules.Sites.access;
import static dev.usher.rules.Sites.get;
import static dev.usher.rules.Sites.ip;
import static dev.usher.rules.Sites.site;
import static dev.usher.rules.Sites.withAccess;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

class AccessTest {
    private final RuleServices services = new RuleServices();

    @AfterEach
    void close() {
        services.close();
    }

    private FullHttpResponse check(SiteRules rules, String client) {
        return rules.check(get("/", "a.example"), ip(client), "https", true);
    }

    @Test
    void aSiteWithoutRulesForwardsEverything() {
        SiteRules rules = SiteRules.compile(site("a.example", Sites.traffic()), List.of(), services);

        assertThat(check(rules, "203.0.113.1")).isNull();
        assertThat(rules.needsAsync()).isFalse();
    }

    @Test
    void allowListLetsOnlyItsNetworksIn() {
        SiteRules rules = SiteRules.compile(site("a.example",
                withAccess(access(List.of("192.168.0.0/16", "2001:db8::/32"), List.of(), Map.of()))), List.of(),
                services);

        assertThat(check(rules, "192.168.4.5")).isNull();
        assertThat(check(rules, "2001:db8:1::9")).isNull();
        FullHttpResponse refused = check(rules, "203.0.113.1");
        assertThat(refused.status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
        assertThat(refused.headers().get("content-type")).isEqualTo("text/html; charset=utf-8");
        assertThat(refused.headers().getInt("content-length")).isEqualTo(refused.content().readableBytes());
        assertThat(refused.content().toString(StandardCharsets.UTF_8)).contains("403 Forbidden");
        assertThat(check(rules, "2001:db9::1").status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    }

    @Test
    void denyListShutsItsNetworksOutEvenInsideTheAllowList() {
        SiteRules rules = SiteRules.compile(site("a.example",
                withAccess(access(List.of("10.0.0.0/8"), List.of("10.6.6.0/24", "::1"), Map.of()))), List.of(),
                services);

        assertThat(check(rules, "10.1.2.3")).isNull();
        assertThat(check(rules, "10.6.6.6").status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    }

    @Test
    void denyListAloneLetsEveryoneElseIn() {
        SiteRules rules = SiteRules.compile(site("a.example",
                withAccess(access(List.of(), List.of("203.0.113.0/24", "2001:db8::/126"), Map.of()))), List.of(),
                services);

        assertThat(check(rules, "203.0.114.1")).isNull();
        assertThat(check(rules, "2001:db8::4")).isNull();
        assertThat(check(rules, "203.0.113.200").status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
        assertThat(check(rules, "2001:db8::3").status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    }

    @Test
    void anIpv4AddressNeverMatchesAnIpv6Network() {
        SiteRules rules = SiteRules.compile(site("a.example",
                withAccess(access(List.of("::/0"), List.of(), Map.of()))), List.of(), services);

        assertThat(check(rules, "2001:db8::1")).isNull();
        assertThat(check(rules, "192.0.2.1").status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    }

    @Test
    void refusalClosesTheConnectionWhenAskedTo() {
        SiteRules rules = SiteRules.compile(site("a.example",
                withAccess(access(List.of(), List.of("0.0.0.0/0"), Map.of()))), List.of(), services);

        FullHttpResponse refused = rules.check(get("/", "a.example"), ip("192.0.2.1"), "http", false);

        assertThat(refused.headers().get("connection")).isEqualTo("close");
        assertThat(check(rules, "192.0.2.1").headers().contains("connection")).isFalse();
    }

    @Test
    void checksTheAddressFoundBehindTrustedProxies() {
        SiteRules rules = SiteRules.compile(site("a.example",
                withAccess(access(List.of(), List.of("203.0.113.0/24"), Map.of()))), Sites.cidrs("10.0.0.0/8"),
                services);
        var request = get("/", "a.example");
        request.headers().set("x-forwarded-for", "203.0.113.4");

        var client = rules.clientAddress(ip("10.0.0.1"), request.headers());

        assertThat(rules.check(request, client, "https", true).status()).isEqualTo(HttpResponseStatus.FORBIDDEN);
    }
}
