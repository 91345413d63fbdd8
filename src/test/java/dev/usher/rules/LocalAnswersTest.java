package dev.usher.rules;

import static dev.usher.rules.Sites.get;
import static dev.usher.rules.Sites.ip;
import static dev.usher.rules.Sites.site;
import static dev.usher.rules.Sites.withAnswers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.config.FixedAnswer;
import dev.usher.config.Redirect;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

class LocalAnswersTest {
    private final RuleServices services = new RuleServices();

    @AfterEach
    void close() {
        services.close();
    }

    private FullHttpResponse redirect(String target, int status, HttpRequest request, String scheme) {
        SiteRules rules = SiteRules.compile(site("old.example", withAnswers(new Redirect(target, status), null)),
                List.of(), services);
        return rules.check(request, ip("192.0.2.1"), scheme, true);
    }

    @ParameterizedTest(name = "{0} -> {3}")
    @CsvSource(delimiter = '|', value = {
        "https://new.example{uri}|/a/b?x=1&y=2|old.example|https://new.example/a/b?x=1&y=2",
        "https://new.example{uri}|/|old.example|https://new.example/",
        "{scheme}://{host}/v2{path}?from={query}|/a/b?x=1|old.example:8080|http://old.example/v2/a/b?from=x=1",
        "https://{host}{path}|/p|[2001:db8::1]:8443|https://[2001:db8::1]/p",
        "https://new.example{path}#{query}|/p|old.example|https://new.example/p#",
        "https://new.example/{unknown}{uri}|/p|old.example|https://new.example/{unknown}/p",
        "https://new.example{URI}|/p|old.example|https://new.example/p",
        "{uri}|//evil.example/x|old.example|/evil.example/x",
        "{path}/|/\\\\evil.example|old.example|/evil.example/",
        "https://new.example{uri}|http://old.example/abs?q|old.example|https://new.example/abs?q",
        "https://new.example{uri}|http://old.example?q|old.example|https://new.example/?q",
    })
    void fillsThePlaceholders(String target, String uri, String host, String location) {
        FullHttpResponse response = redirect(target, 301, get(uri, host), "http");

        assertThat(response.status().code()).isEqualTo(301);
        assertThat(response.headers().get("location")).isEqualTo(location);
        assertThat(response.headers().getInt("content-length")).isZero();
        assertThat(response.content().readableBytes()).isZero();
    }

    @Test
    void usesTheConfiguredStatusAndClosesWhenAsked() {
        SiteRules rules = SiteRules.compile(site("old.example",
                withAnswers(new Redirect("https://new.example{uri}", 308), null)), List.of(), services);

        FullHttpResponse response = rules.check(get("/x", "old.example"), ip("192.0.2.1"), "https", false);

        assertThat(response.status().code()).isEqualTo(308);
        assertThat(response.headers().get("connection")).isEqualTo("close");
    }

    @Test
    void aMissingHostLeavesTheHostPlaceholderEmpty() {
        FullHttpResponse response = redirect("https://{host}/", 302, get("/", null), "https");

        assertThat(response.headers().get("location")).isEqualTo("https:///");
    }

    @Test
    void answersWithTheFixedStatusBodyAndType() {
        SiteRules rules = SiteRules.compile(site("maint.example",
                withAnswers(null, new FixedAnswer(503, "Back soon – ünïcode", "text/plain; charset=utf-8"))),
                List.of(), services);

        FullHttpResponse response = rules.check(get("/any", "maint.example"), ip("192.0.2.1"), "https", true);

        assertThat(response.status().code()).isEqualTo(503);
        assertThat(response.content().toString(StandardCharsets.UTF_8)).isEqualTo("Back soon – ünïcode");
        assertThat(response.headers().getInt("content-length")).isEqualTo(response.content().readableBytes());
        assertThat(response.headers().get("content-type")).isEqualTo("text/plain; charset=utf-8");
        assertThat(response.headers().contains("connection")).isFalse();
        // Each answer gets its own buffer view: reading one does not drain the next.
        FullHttpResponse again = rules.check(get("/any", "maint.example"), ip("192.0.2.1"), "https", true);
        assertThat(again.content().readableBytes()).isEqualTo(response.content().readableBytes());
    }

    @Test
    void aNoContentAnswerHasNoBodyOrLength() {
        SiteRules rules = SiteRules.compile(site("ping.example",
                withAnswers(null, new FixedAnswer(204, "ignored", "text/plain"))), List.of(), services);

        FullHttpResponse response = rules.check(get("/", "ping.example"), ip("192.0.2.1"), "https", true);

        assertThat(response.status().code()).isEqualTo(204);
        assertThat(response.content().readableBytes()).isZero();
        assertThat(response.headers().contains("content-length")).isFalse();
        assertThat(response.headers().contains("content-type")).isFalse();
    }

    @Test
    void anEmptyBodyHasLengthZeroAndNoType() {
        SiteRules rules = SiteRules.compile(site("ok.example",
                withAnswers(null, new FixedAnswer(200, "", "text/plain"))), List.of(), services);

        FullHttpResponse response = rules.check(get("/", "ok.example"), ip("192.0.2.1"), "https", true);

        assertThat(response.headers().getInt("content-length")).isZero();
        assertThat(response.headers().contains("content-type")).isFalse();
    }

    @Test
    void percentEncodesWhatMayNotAppearRawInALocation() {
        // Netty's decoder reads the request line byte for byte: U+00E9 here is the raw byte 0xE9.
        FullHttpResponse response = redirect("https://new.example/caf\u00e9{uri}", 302,
                get("/caf\u00e9/\u0001x", "old.example"), "https");

        assertThat(response.headers().get("location")).isEqualTo("https://new.example/caf%C3%A9/caf%E9/%01x");
    }

    @Test
    void refusesATargetWithControlCharacters() {
        assertThatThrownBy(() -> SiteRules.compile(site("old.example",
                withAnswers(new Redirect("https://x.example/\r\nSet-Cookie: a=b", 301), null)), List.of(), services))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
