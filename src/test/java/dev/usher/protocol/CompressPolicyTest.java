package dev.usher.protocol;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CompressPolicyTest {
    @Test
    void compressesTextAndStructuredTypes() {
        for (String type : new String[] {"text/html; charset=utf-8", "TEXT/CSS", "text/plain", "text/event-stream",
                "application/json", "application/problem+json", "application/manifest+json", "application/javascript",
                "application/xml", "application/rss+xml", "image/svg+xml", "application/wasm", "font/ttf",
                "font/otf", "application/x-font-ttf", "application/vnd.ms-fontobject", " application/json ;x=y",
                "Application/LD+JSON", "application/+xml", "IMAGE/SVG+XML"}) {
            assertThat(CompressPolicy.compressibleType(type)).as(type).isTrue();
        }
    }

    @Test
    void leavesCompressedOrUnknownTypesAlone() {
        for (String type : new String[] {"image/png", "image/jpeg", "image/webp", "video/mp4", "font/woff2",
                "font/woff", "application/zip", "application/gzip", "application/octet-stream", "application/pdf",
                "application/jsonx", "image/svg", "text/", "/json", "text", "", "text /plain", "textual/plain",
                "application/+jso", "text;charset=a/b", "fonts/ttf"}) {
            assertThat(CompressPolicy.compressibleType(type)).as(type).isFalse();
        }
        assertThat(CompressPolicy.compressibleType(null)).isFalse();
    }

    @Test
    void identityIsNotAnEncoding() {
        HttpHeaders headers = new DefaultHttpHeaders();
        assertThat(CompressPolicy.alreadyEncoded(headers)).isFalse();
        headers.set(HttpHeaderNames.CONTENT_ENCODING, "identity");
        assertThat(CompressPolicy.alreadyEncoded(headers)).isFalse();
        headers.set(HttpHeaderNames.CONTENT_ENCODING, "Identity, br");
        assertThat(CompressPolicy.alreadyEncoded(headers)).isTrue();
    }

    @Test
    void mergesVaryIntoOneFieldWithoutDuplicates() {
        HttpHeaders headers = new DefaultHttpHeaders();
        CompressPolicy.addVary(headers);
        assertThat(headers.getAll(HttpHeaderNames.VARY)).containsExactly("Accept-Encoding");
        CompressPolicy.addVary(headers);
        assertThat(headers.getAll(HttpHeaderNames.VARY)).containsExactly("Accept-Encoding");

        headers = new DefaultHttpHeaders().add(HttpHeaderNames.VARY, "Origin").add(HttpHeaderNames.VARY, "Cookie, ");
        CompressPolicy.addVary(headers);
        assertThat(headers.getAll(HttpHeaderNames.VARY)).containsExactly("Origin, Cookie, Accept-Encoding");

        headers = new DefaultHttpHeaders().add(HttpHeaderNames.VARY, "origin, accept-encoding");
        CompressPolicy.addVary(headers);
        assertThat(headers.getAll(HttpHeaderNames.VARY)).containsExactly("origin, accept-encoding");

        headers = new DefaultHttpHeaders().add(HttpHeaderNames.VARY, "*");
        CompressPolicy.addVary(headers);
        assertThat(headers.getAll(HttpHeaderNames.VARY)).containsExactly("*");
    }

    @Test
    void weakensOnlyStrongEtags() {
        HttpHeaders headers = new DefaultHttpHeaders().set(HttpHeaderNames.ETAG, "\"v1\"");
        CompressPolicy.weakenEtag(headers);
        assertThat(headers.get(HttpHeaderNames.ETAG)).isEqualTo("W/\"v1\"");
        CompressPolicy.weakenEtag(headers);
        assertThat(headers.get(HttpHeaderNames.ETAG)).isEqualTo("W/\"v1\"");
        headers = new DefaultHttpHeaders();
        CompressPolicy.weakenEtag(headers);
        assertThat(headers.contains(HttpHeaderNames.ETAG)).isFalse();
    }
}
