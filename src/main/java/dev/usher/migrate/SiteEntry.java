package dev.usher.migrate;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One site to write into {@code usher.yaml}: what a converter made of a host, router or site block. Options left at
 * null (or empty) are not written, so a site with nothing but backends comes out as one line.
 *
 * @param name            the site name, lower-case ASCII (an international name in its punycode form)
 * @param plainHttp       served over plain HTTP only ({@code http://} in front of the name)
 * @param writtenAs       the name as the source wrote it, when that differs from {@code name} (a unicode name)
 * @param action          what the site does: forward, redirect or answer
 * @param policy          load-balancing policy, or null for the default
 * @param health          health checks, or null
 * @param headers         response header edits, in order
 * @param requestHeaders  request header edits, in order
 * @param basicAuth       user name to bcrypt hash, in order
 * @param allow           networks allowed (empty: everyone)
 * @param deny            networks refused
 * @param rateLimit       the rate limit, or null
 * @param gzip            false to turn compression off; null for the default (on)
 * @param accessLog       the site's own {@code access_log:}, or null
 * @param tls             where its certificate comes from
 * @param certFiles       for {@link Tls#FILES}: the certificate and key files
 * @param origin          where it came from (the comment beside it)
 * @param state           written as a site, or as a comment
 * @param commentReason   for {@link State#COMMENTED_OUT}: why, written beside it
 */
public record SiteEntry(String name, boolean plainHttp, String writtenAs, Action action, String policy, Health health,
                        List<HeaderEdit> headers, List<HeaderEdit> requestHeaders, Map<String, String> basicAuth,
                        List<String> allow, List<String> deny, RateLimitSpec rateLimit, Boolean gzip,
                        Boolean accessLog, Tls tls, FoundCertificate.Files certFiles, Origin origin, State state,
                        String commentReason) {
    public SiteEntry {
        headers = List.copyOf(headers);
        requestHeaders = List.copyOf(requestHeaders);
        basicAuth = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(basicAuth));
        allow = List.copyOf(allow);
        deny = List.copyOf(deny);
    }

    /** What a site does. */
    public sealed interface Action permits Proxy, Redirect, Respond {
    }

    /** Forwards to these backends ({@code host:port}). */
    public record Proxy(List<String> upstreams) implements Action {
        public Proxy {
            upstreams = List.copyOf(upstreams);
        }
    }

    /** Redirects every request: {@code to} may hold Usher's placeholders ({@code {uri}}); status 301–308. */
    public record Redirect(String to, int status) implements Action {
    }

    /** Answers every request itself: a status, and a body (null for none). */
    public record Respond(int status, String body) implements Action {
    }

    /** Health checks: the active check's path (or null for passive only) and its timing as written (or null). */
    public record Health(String path, String interval, String timeout) {
    }

    /** {@code rate_limit: {requests, per, burst}}; burst 0 for the default. */
    public record RateLimitSpec(long requests, String per, long burst) {
    }

    /** Where the certificate comes from. */
    public enum Tls {
        /** Usher's default: stored or ordered from the ACME CA, or the local CA for local names. */
        AUTO,
        /** Usher's local CA ({@code tls: internal}). */
        INTERNAL,
        /** Files ({@code tls: {cert, key}}). */
        FILES
    }

    /** Whether the site is written as a site or as a comment a user can turn back on. */
    public enum State {
        ACTIVE,
        COMMENTED_OUT
    }

    /** True when the site is served over HTTPS. */
    public boolean https() {
        return !plainHttp;
    }

    /** This site with its certificate from files. */
    public SiteEntry withCertFiles(FoundCertificate.Files files) {
        return new SiteEntry(name, plainHttp, writtenAs, action, policy, health, headers, requestHeaders, basicAuth,
                allow, deny, rateLimit, gzip, accessLog, Tls.FILES, files, origin, state, commentReason);
    }

    /** This site written as a comment, with the reason beside it. */
    public SiteEntry commentedOut(String reason) {
        return new SiteEntry(name, plainHttp, writtenAs, action, policy, health, headers, requestHeaders, basicAuth,
                allow, deny, rateLimit, gzip, accessLog, tls, certFiles, origin, State.COMMENTED_OUT, reason);
    }

    /** A builder for a site with this name, coming from {@code origin}. */
    public static Builder builder(String name, Origin origin) {
        return new Builder(name, origin);
    }

    /** Collects a site's options while a converter reads its source. */
    public static final class Builder {
        private final String name;
        private final Origin origin;
        private boolean plainHttp;
        private String writtenAs;
        private Action action;
        private String policy;
        private Health health;
        private final List<HeaderEdit> headers = new ArrayList<>();
        private final List<HeaderEdit> requestHeaders = new ArrayList<>();
        private final Map<String, String> basicAuth = new LinkedHashMap<>();
        private final List<String> allow = new ArrayList<>();
        private final List<String> deny = new ArrayList<>();
        private RateLimitSpec rateLimit;
        private Boolean gzip;
        private Boolean accessLog;
        private Tls tls = Tls.AUTO;
        private FoundCertificate.Files certFiles;
        private State state = State.ACTIVE;
        private String commentReason;

        private Builder(String name, Origin origin) {
            this.name = name;
            this.origin = origin;
        }

        public Builder plainHttp(boolean plain) {
            this.plainHttp = plain;
            return this;
        }

        public Builder writtenAs(String original) {
            this.writtenAs = original;
            return this;
        }

        public Builder proxy(List<String> upstreams) {
            this.action = new Proxy(upstreams);
            return this;
        }

        public Builder redirect(String to, int status) {
            this.action = new Redirect(to, status);
            return this;
        }

        public Builder respond(int status, String body) {
            this.action = new Respond(status, body);
            return this;
        }

        public Builder policy(String policy) {
            this.policy = policy;
            return this;
        }

        public Builder health(Health health) {
            this.health = health;
            return this;
        }

        public Builder header(HeaderEdit edit) {
            headers.add(edit);
            return this;
        }

        public Builder requestHeader(HeaderEdit edit) {
            requestHeaders.add(edit);
            return this;
        }

        public Builder user(String name, String bcrypt) {
            basicAuth.put(name, bcrypt);
            return this;
        }

        public Builder allow(String network) {
            allow.add(network);
            return this;
        }

        public Builder deny(String network) {
            deny.add(network);
            return this;
        }

        public Builder rateLimit(RateLimitSpec limit) {
            this.rateLimit = limit;
            return this;
        }

        public Builder gzip(Boolean on) {
            this.gzip = on;
            return this;
        }

        public Builder accessLog(Boolean on) {
            this.accessLog = on;
            return this;
        }

        public Builder tls(Tls tls) {
            this.tls = tls;
            return this;
        }

        public Builder certFiles(Path cert, Path key) {
            this.tls = Tls.FILES;
            this.certFiles = new FoundCertificate.Files(cert, key);
            return this;
        }

        public Builder commentedOut(String reason) {
            this.state = State.COMMENTED_OUT;
            this.commentReason = reason;
            return this;
        }

        /** True once a forward, redirect or answer was given. */
        public boolean hasAction() {
            return action != null;
        }

        public SiteEntry build() {
            if (action == null) {
                throw new IllegalStateException("site " + name + " has nothing to do");
            }
            return new SiteEntry(name, plainHttp, writtenAs, action, policy, health, headers, requestHeaders,
                    basicAuth, allow, deny, rateLimit, gzip, accessLog, tls, certFiles, origin, state, commentReason);
        }
    }
}
