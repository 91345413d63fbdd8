package dev.usher.rules;

import static dev.usher.rules.Sites.site;
import static dev.usher.rules.Sites.withHeaders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.config.HeaderRule;
import dev.usher.config.HeaderRule.Op;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

class HeaderEditsTest {
    private final RuleServices services = new RuleServices();

    @AfterEach
    void close() {
        services.close();
    }

    private SiteRules rules(List<HeaderRule> request, List<HeaderRule> response, boolean security) {
        return SiteRules.compile(site("a.example", withHeaders(true, request, response, security)), List.of(),
                services);
    }

    private static HttpHeaders backend() {
        return new DefaultHttpHeaders()
                .add("server", "gunicorn")
                .add("x-tag", "one")
                .add("x-tag", "two")
                .add("x-frame-options", "DENY");
    }

    @Test
    void appliesSetAddAndRemoveInFileOrder() {
        SiteRules rules = rules(List.of(), List.of(
                new HeaderRule(Op.SET, "X-Tag", "set"),
                new HeaderRule(Op.ADD, "X-Tag", "added"),
                new HeaderRule(Op.REMOVE, "Server", ""),
                new HeaderRule(Op.ADD, "Server", "usher"),
                new HeaderRule(Op.REMOVE, "X-Missing", ""),
                new HeaderRule(Op.ADD, "Cache-Control", "no-cache")), false);
        HttpHeaders headers = backend();

        rules.editResponse(headers, true);

        assertThat(headers.getAll("x-tag")).containsExactly("set", "added");
        assertThat(headers.getAll("server")).containsExactly("usher");
        assertThat(headers.getAll("cache-control")).containsExactly("no-cache");
        assertThat(headers.get("x-frame-options")).isEqualTo("DENY");
        assertThat(headers.contains("strict-transport-security")).isFalse();
    }

    @Test
    void removeAfterAddLeavesNothing() {
        SiteRules rules = rules(List.of(), List.of(
                new HeaderRule(Op.ADD, "X-Tag", "three"),
                new HeaderRule(Op.REMOVE, "x-tag", "")), false);
        HttpHeaders headers = backend();

        rules.editResponse(headers, false);

        assertThat(headers.contains("x-tag")).isFalse();
    }

    @Test
    void editsRequestsWithTheirOwnRules() {
        SiteRules rules = rules(List.of(
                new HeaderRule(Op.SET, "X-Forwarded-Proto", "https"),
                new HeaderRule(Op.REMOVE, "Cookie", "")), List.of(new HeaderRule(Op.SET, "X-Only-Response", "1")),
                true);
        HttpHeaders request = new DefaultHttpHeaders().add("cookie", "a=b").add("x-forwarded-proto", "http");

        rules.editRequest(request);

        assertThat(request.get("x-forwarded-proto")).isEqualTo("https");
        assertThat(request.contains("cookie")).isFalse();
        assertThat(request.contains("x-only-response")).isFalse();
        assertThat(request.contains("x-content-type-options")).isFalse();
    }

    @Test
    void securityHeadersFillOnlyWhatTheBackendLeftOut() {
        SiteRules rules = rules(List.of(), List.of(), true);
        HttpHeaders headers = backend();

        rules.editResponse(headers, true);

        assertThat(headers.get("strict-transport-security")).isEqualTo("max-age=31536000");
        assertThat(headers.get("x-content-type-options")).isEqualTo("nosniff");
        assertThat(headers.getAll("x-frame-options")).containsExactly("DENY");
        assertThat(headers.get("referrer-policy")).isEqualTo("strict-origin-when-cross-origin");
    }

    @Test
    void hstsIsSentOnlyOverHttps() {
        SiteRules rules = rules(List.of(), List.of(), true);
        HttpHeaders headers = new DefaultHttpHeaders();

        rules.editResponse(headers, false);

        assertThat(headers.contains("strict-transport-security")).isFalse();
        assertThat(headers.get("x-frame-options")).isEqualTo("SAMEORIGIN");
    }

    @Test
    void theSitesOwnEditsWinOverSecurityHeaders() {
        SiteRules rules = rules(List.of(), List.of(
                new HeaderRule(Op.SET, "Strict-Transport-Security", "max-age=60"),
                new HeaderRule(Op.REMOVE, "Referrer-Policy", "")), true);
        HttpHeaders headers = new DefaultHttpHeaders();

        rules.editResponse(headers, true);

        assertThat(headers.getAll("strict-transport-security")).containsExactly("max-age=60");
        assertThat(headers.contains("referrer-policy")).isFalse();
    }

    @Test
    void withoutSecurityHeadersNothingIsAdded() {
        SiteRules rules = rules(List.of(), List.of(), false);
        HttpHeaders headers = new DefaultHttpHeaders();

        rules.editResponse(headers, true);

        assertThat(headers.isEmpty()).isTrue();
    }

    @Test
    void reportsTheCompressionOption() {
        assertThat(rules(List.of(), List.of(), false).compress()).isTrue();
        assertThat(SiteRules.compile(site("b.example", withHeaders(false, List.of(), List.of(), false)), List.of(),
                services).compress()).isFalse();
    }

    @Test
    void refusesAtCompileTimeWhatNettyWouldRefusePerRequest() {
        assertThatThrownBy(() -> rules(List.of(), List.of(new HeaderRule(Op.SET, "Bad Name", "x")), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Bad Name");
        assertThatThrownBy(() -> rules(List.of(new HeaderRule(Op.ADD, "X-Ok", "a\r\nInjected: 1")), List.of(),
                false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> rules(List.of(), List.of(new HeaderRule(Op.SET, "X-Arrow", "\u2192")), false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
