package dev.usher.rules;

import dev.usher.config.Access;
import dev.usher.config.Cidr;
import dev.usher.config.FixedAnswer;
import dev.usher.config.HeaderRule;
import dev.usher.config.RateLimit;
import dev.usher.config.Redirect;
import dev.usher.config.Site;
import dev.usher.config.SiteTraffic;
import dev.usher.config.UpstreamAddress;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.NetUtil;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Builds config records and requests for the rules tests. */
final class Sites {
    private Sites() {
    }

    /** A clock for RuleServices that only moves when told to; starts near the wrap to prove subtraction is used. */
    static final class ManualClock {
        private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 5_000_000_000L);

        long nanoTime() {
            return now.get();
        }

        void advance(Duration by) {
            now.addAndGet(by.toNanos());
        }
    }

    static SiteTraffic traffic() {
        return SiteTraffic.DEFAULTS;
    }

    static Site site(String name, SiteTraffic traffic) {
        return new Site(name, false, List.of(new UpstreamAddress("127.0.0.1", 8080)), 0, Duration.ofSeconds(5),
                Duration.ofSeconds(30), 1, 1, traffic);
    }

    static SiteTraffic withAccess(Access access) {
        SiteTraffic d = SiteTraffic.DEFAULTS;
        return new SiteTraffic(d.compress(), d.balancing(), d.requestHeaders(), d.responseHeaders(),
                d.securityHeaders(), d.redirect(), d.respond(), access, d.rateLimit(), d.readTimeout(),
                d.writeTimeout(), d.websocketIdle());
    }

    static SiteTraffic withRateLimit(RateLimit limit) {
        SiteTraffic d = SiteTraffic.DEFAULTS;
        return new SiteTraffic(d.compress(), d.balancing(), d.requestHeaders(), d.responseHeaders(),
                d.securityHeaders(), d.redirect(), d.respond(), d.access(), limit, d.readTimeout(),
                d.writeTimeout(), d.websocketIdle());
    }

    static SiteTraffic withAnswers(Redirect redirect, FixedAnswer respond) {
        SiteTraffic d = SiteTraffic.DEFAULTS;
        return new SiteTraffic(d.compress(), d.balancing(), d.requestHeaders(), d.responseHeaders(),
                d.securityHeaders(), redirect, respond, d.access(), d.rateLimit(), d.readTimeout(),
                d.writeTimeout(), d.websocketIdle());
    }

    static SiteTraffic withHeaders(boolean compress, List<HeaderRule> request, List<HeaderRule> response,
                                   boolean security) {
        SiteTraffic d = SiteTraffic.DEFAULTS;
        return new SiteTraffic(compress, d.balancing(), request, response, security, d.redirect(), d.respond(),
                d.access(), d.rateLimit(), d.readTimeout(), d.writeTimeout(), d.websocketIdle());
    }

    static Access access(List<String> allow, List<String> deny, Map<String, String> users) {
        return new Access(cidrs(allow), cidrs(deny), users);
    }

    static List<Cidr> cidrs(List<String> texts) {
        return texts.stream().map(Cidr::parse).toList();
    }

    static List<Cidr> cidrs(String... texts) {
        return cidrs(Arrays.asList(texts));
    }

    static InetAddress ip(String literal) {
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(literal);
        if (bytes == null) {
            throw new IllegalArgumentException(literal);
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static HttpRequest get(String uri, String host) {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        if (host != null) {
            request.headers().set("host", host);
        }
        return request;
    }
}
