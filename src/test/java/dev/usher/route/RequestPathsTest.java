package dev.usher.route;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestPathsTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "/ | /",
        "/api/users?x=1&y=%2e | /api/users?x=1&y=%2e",
        "/a/./b | /a/b",
        "/a/../b | /b",
        "/a/b/.. | /a/",
        "/a/b/. | /a/b/",
        "/. | /",
        "/api/.. | /",
        "/%61pi/ | /api/",
        "/%7Euser/ | /~user/",
        "/api/%2e%2e/admin/ | /admin/",
        "/api/%2E%2E/admin/ | /admin/",
        "/api/.%2e/admin | /admin",
        "/api/%2e./admin | /admin",
        "/a%2fb | /a%2Fb",
        "/group%2Fproject/x | /group%2Fproject/x",
        "/a//b | /a//b",
        "//admin/ | //admin/",
        "/a//../b | /a/b",
        "/.well-known/acme-challenge/x | /.well-known/acme-challenge/x",
        "/..a/b... | /..a/b...",
        "/a%20b | /a%20b",
        "/caf%c3%a9 | /caf%C3%A9",
        "* | *",
    })
    void normalises(String uri, String normal) {
        assertThat(RequestPaths.normalize(uri)).isEqualTo(normal);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "/..", "/../admin", "/a/../../b", "/%2e%2e/admin", "/%zz", "/%4", "/%", "/a%0ab", "/a%00", "/a%7f",
        "/api/..%2Fadmin", "/api/..%2fadmin", "/api/%2F..%2Fadmin", "/api%5C..%5Cadmin", "/a\\b", "'/a b'",
        "/caf\u00e9",
    })
    void refusesWhatHasNoNormalForm(String uri) {
        assertThat(RequestPaths.normalize(uri)).isNull();
    }

    @Test
    void aNormalPathIsTheSameString() {
        String uri = "/dashboard/projects?tab=recent";
        assertThat(RequestPaths.normalize(uri)).isSameAs(uri);
    }
}
