package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The small value checks behind the site traffic options. */
class TrafficValuesTest {
    @ParameterizedTest
    @ValueSource(strings = {"https://example.com{uri}", "http://example.com", "HTTPS://Example.com/x?y#z",
        "https://{host}{uri}", "{scheme}://example.org{path}?{query}", "/", "/new{uri}", "/a/{path}",
        "https://example.com/%7Bliteral%7D", "https://[2001:db8::1]:8443/"})
    void acceptsRedirectTargets(String target) throws BadValue {
        assertThat(AnswerReader.checkTarget(target)).isEqualTo(target);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "'' | the redirect target is empty; write a URL such as https://example.com{uri}",
        "https://example.com{url} | unknown placeholder {url}; did you mean {uri}?",
        "https://example.com{pth} | unknown placeholder {pth}; did you mean {path}?",
        "https://example.com{request_uri} | unknown placeholder {request_uri}; did you mean {uri}?",
        "https://example.com/{foo} | unknown placeholder {foo}; use {uri}, {path}, {query}, {host} or {scheme}",
        "https://example.com{} | unknown placeholder {}; use {uri}, {path}, {query}, {host} or {scheme}",
        "https://example.com{uri | \"{\" without a matching \"}\"; placeholders are {uri}, {path}, {query}, {host} "
                + "or {scheme}, and a literal brace is written %7B",
        "https://example.com/a}b | \"}\" without a matching \"{\"; write a literal brace as %7D",
        "https:///path | the redirect target has no host after \"https://\"",
        "//example.com{uri} | a target starting with // sends clients to another host; write it with its scheme, "
                + "as in https://example.com{uri}",
        "ftp://example.com | only http:// and https:// redirects are supported; got \"ftp:\"",
        "example.com{uri} | a redirect target is a full URL (https://example.com{uri}) or a path starting with / "
                + "(/new{uri}); got \"example.com{uri}\"",
        "'https://example.com/a b' | a redirect target cannot contain spaces, line breaks or other control "
                + "characters; write a space as %20",
    })
    void explainsBadRedirectTargets(String target, String message) {
        assertThatThrownBy(() -> AnswerReader.checkTarget(target)).isInstanceOf(BadValue.class).hasMessage(message);
    }

    @Test
    void refusesLineBreaksAndNonAsciiInTargets() {
        assertThatThrownBy(() -> AnswerReader.checkTarget("https://example.com/\r\nSet-Cookie: x"))
                .hasMessageStartingWith("a redirect target cannot contain spaces, line breaks");
        assertThatThrownBy(() -> AnswerReader.checkTarget("https://example.com/café"))
                .hasMessageStartingWith("a redirect target must be plain ASCII");
    }

    @ParameterizedTest
    @ValueSource(strings = {"X-Frame-Options", "x-custom", "Link", "A", "X!#$%&'*+-.^_`|~1"})
    void acceptsTokenHeaderNames(String name) throws BadValue {
        assertThat(HeaderRules.checkName(name, name)).isEqualTo(name);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Connection | Connection cannot be edited: it is a hop-by-hop header, which Usher manages for each "
                + "connection itself",
        "transfer-encoding | transfer-encoding cannot be edited: it is a hop-by-hop header; Usher chooses the framing "
                + "of each message itself",
        "Keep-Alive | Keep-Alive cannot be edited: it is a hop-by-hop header, which Usher manages for each "
                + "connection itself",
        "Upgrade | Upgrade cannot be edited: it is a hop-by-hop header; websocket upgrades are passed through as "
                + "they are",
        "TE | TE cannot be edited: it is a hop-by-hop header, which Usher manages for each connection itself",
        "Trailer | Trailer cannot be edited: it is a hop-by-hop header; Usher chooses the framing of each message "
                + "itself",
        "Proxy-Connection | Proxy-Connection cannot be edited: it is a hop-by-hop header, which Usher manages for "
                + "each connection itself",
        "Content-Length | Content-Length cannot be edited: it is worked out from the body, so an edit would "
                + "corrupt the message",
        "HOST | HOST cannot be edited: it is the site name the client asked for; Usher forwards it as received",
    })
    void explainsBadHeaderNames(String name, String message) {
        assertThatThrownBy(() -> HeaderRules.checkName(name, name)).isInstanceOf(BadValue.class).hasMessage(message);
    }

    @Test
    void namesTheCharacterThatIsNotAllowedInAHeaderName() {
        assertThatThrownBy(() -> HeaderRules.checkName("X Frame", "X Frame")).hasMessage("\"X Frame\" is not a valid "
                + "header name: it contains a space; a header name has only letters, digits and !#$%&'*+-.^_`|~");
        assertThatThrownBy(() -> HeaderRules.checkName("X:Frame", "+X:Frame")).hasMessage("\"X:Frame\" is not a "
                + "valid header name: it contains \":\"; a header name has only letters, digits and !#$%&'*+-.^_`|~");
    }

    @Test
    void saysWhenTheNameIsMissingAfterThePrefix() {
        assertThatThrownBy(() -> HeaderRules.checkName("", "+")).hasMessage("the header name is missing after \"+\"");
        assertThatThrownBy(() -> HeaderRules.checkName("", "")).hasMessage("the header name is empty");
    }

    @Test
    void refusesControlCharactersAndNonAsciiInHeaderValues() throws BadValue {
        assertThat(HeaderRules.checkValue("a\tb; c=\"d\"")).isEqualTo("a\tb; c=\"d\"");
        assertThatThrownBy(() -> HeaderRules.checkValue("a\r\nSet-Cookie: x")).hasMessage("a header value cannot "
                + "contain a carriage return (\\r) (line breaks and other control characters would corrupt the "
                + "message)");
        assertThatThrownBy(() -> HeaderRules.checkValue("a\nb")).hasMessageContaining("a line break (\\n)");
        assertThatThrownBy(() -> HeaderRules.checkValue("a\0b")).hasMessageContaining("a NUL character");
        assertThatThrownBy(() -> HeaderRules.checkValue("a\u0007")).hasMessageContaining("U+0007");
        assertThatThrownBy(() -> HeaderRules.checkValue("café")).hasMessageStartingWith(
                "a header value must be plain ASCII; \"é\" is not");
    }

    @ParameterizedTest
    @ValueSource(strings = {"$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
        "$2a$04$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
        "$2b$31$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"})
    void acceptsBcryptHashes(String hash) throws BadValue {
        assertThat(AccessReader.checkHash(hash)).isEqualTo(hash);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "secret | not a bcrypt hash",
        "$2y$10$tooShort | not a bcrypt hash",
        "$2x$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy | not a bcrypt hash",
        "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhW! | not a bcrypt hash",
        "$2y$03$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy | the bcrypt cost 03 is out of range (04 to 31)",
        "$2y$32$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy | the bcrypt cost 32 is out of range (04 to 31)",
        "$apr1$abc$def | only bcrypt hashes are accepted, not MD5, SHA or crypt ones",
        "{SHA}abcdef= | only bcrypt hashes are accepted, not MD5, SHA or crypt ones",
    })
    void explainsBadHashesWithoutShowingThem(String hash, String start) {
        assertThatThrownBy(() -> AccessReader.checkHash(hash)).isInstanceOf(BadValue.class)
                .hasMessageStartingWith(start).hasMessageEndingWith("make one with: usher hash-password")
                .message().doesNotContain(hash);
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "text/html; charset=utf-8", "application/json", "image/svg+xml"})
    void acceptsMediaTypes(String type) throws BadValue {
        assertThat(AnswerReader.checkContentType(type)).isEqualTo(type);
    }

    @ParameterizedTest
    @ValueSource(strings = {"html", "text/", "/plain", "text/html/x", "text plain", "te xt/plain"})
    void refusesWhatIsNotAMediaType(String type) {
        assertThatThrownBy(() -> AnswerReader.checkContentType(type)).isInstanceOf(BadValue.class)
                .hasMessageContaining("is not a media type; write type/subtype");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"PT2S | 2s", "PT1H30M | 1h30m", "PT0.5S | 500ms", "PT1.5S | 1s500ms",
        "PT0.0001S | 100000ns", "PT26H | 26h"})
    void formatsDurationsInTheFileNotation(Duration duration, String shown) {
        assertThat(Durations.format(duration)).isEqualTo(shown);
    }

    @Test
    void checksHealthPaths() throws BadValue {
        assertThat(BalancingReader.checkHealthPath("/healthz?full=1")).isEqualTo("/healthz?full=1");
        assertThatThrownBy(() -> BalancingReader.checkHealthPath("healthz"))
                .hasMessage("a health check path starts with \"/\", as in /healthz; got \"healthz\"");
        assertThatThrownBy(() -> BalancingReader.checkHealthPath("/health z"))
                .hasMessageStartingWith("a health check path cannot contain spaces");
    }
}
