package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Reads a site's traffic options ({@link SiteTraffic}) from the fields of its long form: compression, balancing and
 * health, header edits, security headers, redirect or fixed answer, access control and rate limit. Absent options
 * take the defaults of {@link SiteTraffic#DEFAULTS}; a mapping left empty ({@code health:}) counts as absent.
 */
final class TrafficReader {
    static final List<String> POLICIES = List.of("round_robin", "least_conn", "first", "ip_hash");

    private static final Map<String, String> POLICY_ALIASES = Map.ofEntries(
            Map.entry("rr", "round_robin"), Map.entry("roundrobin", "round_robin"),
            Map.entry("least_connections", "least_conn"), Map.entry("leastconn", "least_conn"),
            Map.entry("least_conns", "least_conn"), Map.entry("failover", "first"), Map.entry("primary", "first"),
            Map.entry("hash", "ip_hash"), Map.entry("sticky", "ip_hash"), Map.entry("client_ip", "ip_hash"),
            Map.entry("source", "ip_hash"));
    private static final Keys HEALTH = Keys.of("path", "interval", "timeout", "max_fails", "fail_timeout")
            .withAliases(Map.of("uri", "path", "url", "path", "every", "interval", "frequency", "interval",
                    "fails", "max_fails", "max_failures", "max_fails", "failures", "max_fails",
                    "unhealthy_threshold", "max_fails", "fail_duration", "fail_timeout"));
    private static final Keys RATE_LIMIT = Keys.of("requests", "per", "burst")
            .withAliases(Map.of("rate", "requests", "limit", "requests", "count", "requests", "period", "per",
                    "window", "per", "interval", "per", "every", "per"));
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
    private static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(2);
    private static final String FORWARDS_ONLY = " only applies to a site that forwards to backends (to:)";

    private final NodeWalker walker;
    private final Values values;

    TrafficReader(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    /**
     * The traffic options of one site, or of one of its paths.
     *
     * @param fields   the long-form fields
     * @param forwards false for a site (or path) that redirects or answers itself, where backend options are errors
     * @param base     the value of each option not in {@code fields}: the defaults with the site's timeouts for a
     *                 site; the site's own options for one of its paths
     */
    SiteTraffic read(Map<String, Field> fields, boolean forwards, SiteTraffic base) {
        if (!forwards) {
            for (String key : List.of("policy", "health", "request_headers")) {
                Field field = fields.get(key);
                if (field != null) {
                    walker.error(field.keyNode(), field.path(), field.key() + FORWARDS_ONLY);
                }
            }
        }
        boolean compress = field(fields, "gzip").flatMap(values::bool).orElse(base.compress());
        boolean security = field(fields, "security_headers").flatMap(values::bool).orElse(base.securityHeaders());
        Balancing balancing = balancing(fields.get("policy"), section(fields.get("health")), base.balancing());
        HeaderRules headers = new HeaderRules(walker, values);
        List<HeaderRule> requestHeaders = section(fields.get("request_headers")).map(headers::read)
                .orElse(base.requestHeaders());
        List<HeaderRule> responseHeaders = section(fields.get("headers")).map(headers::read)
                .orElse(base.responseHeaders());
        AnswerReader answers = new AnswerReader(walker, values);
        Redirect redirect = field(fields, "redirect").flatMap(answers::redirect).orElse(base.redirect());
        FixedAnswer respond = field(fields, "respond").flatMap(answers::respond).orElse(base.respond());
        Access access = new AccessReader(walker, values).read(fields.get("allow"), fields.get("deny"),
                fields.get("basic_auth"), base.access());
        RateLimit rateLimit = section(fields.get("rate_limit")).map(this::rateLimitOrOff)
                .orElse(Optional.ofNullable(base.rateLimit())).orElse(null);
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, security, redirect, respond,
                access, rateLimit, base.readTimeout(), base.writeTimeout(), base.websocketIdle(),
                base.keepAliveIdle());
    }

    private static Optional<Field> field(Map<String, Field> fields, String key) {
        return Optional.ofNullable(fields.get(key));
    }

    /** The field when present with something in it; a mapping written with no value counts as absent. */
    private static Optional<Field> section(Field field) {
        return Optional.ofNullable(field).filter(f -> !NodeWalker.isNull(f.value()));
    }

    private Balancing balancing(Field policyField, Optional<Field> healthField, Balancing d) {
        Balancing.Policy policy = Optional.ofNullable(policyField)
                .flatMap(f -> values.word(f, "policy", POLICIES, POLICY_ALIASES))
                .map(p -> Balancing.Policy.valueOf(p.toUpperCase(Locale.ROOT))).orElse(d.policy());
        if (healthField.isEmpty()) {
            return new Balancing(policy, d.maxFails(), d.failTimeout(), d.health());
        }
        Field section = healthField.get();
        Map<String, Field> fields = walker.fields(section.value(), section.path(),
                "a mapping such as {path: /healthz, interval: 10s}", HEALTH);
        int maxFails = field(fields, "max_fails")
                .flatMap(f -> values.integer(f, "a whole number such as 3", 1, Integer.MAX_VALUE))
                .orElse(d.maxFails());
        Duration failTimeout = field(fields, "fail_timeout").flatMap(values::duration).orElse(d.failTimeout());
        return new Balancing(policy, maxFails, failTimeout, healthCheck(fields));
    }

    /** Active checks, on when {@code path} is given; null when off or wrong. */
    private Balancing.HealthCheck healthCheck(Map<String, Field> fields) {
        Field path = fields.get("path");
        Field interval = fields.get("interval");
        Field timeout = fields.get("timeout");
        if (path == null) {
            for (Field f : new Field[] {interval, timeout}) {
                if (f != null) {
                    walker.error(f.keyNode(), f.path(), f.key() + " only applies to active checks; add path: (such "
                            + "as /healthz) to turn them on");
                }
            }
            return null;
        }
        Optional<String> checkPath = walker.text(path.value(), path.path(), "a path such as /healthz",
                        NodeWalker.STRING)
                .flatMap(t -> values.parse(path.value(), path.path(), () -> checkHealthPath(t)));
        Optional<Duration> every = interval == null ? Optional.of(DEFAULT_INTERVAL)
                : values.duration(interval).filter(i -> atLeastOneSecond(interval, i));
        Optional<Duration> wait = timeout == null
                ? every.map(i -> i.dividedBy(2).compareTo(DEFAULT_HEALTH_TIMEOUT) < 0 ? i.dividedBy(2)
                        : DEFAULT_HEALTH_TIMEOUT)
                : values.duration(timeout);
        if (timeout != null && every.isPresent() && wait.isPresent() && wait.get().compareTo(every.get()) >= 0) {
            walker.error(timeout.value(), timeout.path(), "the timeout (" + Durations.format(wait.get())
                    + ") must be shorter than the interval (" + Durations.format(every.get())
                    + (interval == null ? ", the default" : "") + ")");
            return null;
        }
        if (checkPath.isEmpty() || every.isEmpty() || wait.isEmpty()) {
            return null;
        }
        return new Balancing.HealthCheck(checkPath.get(), every.get(), wait.get());
    }

    private boolean atLeastOneSecond(Field field, Duration interval) {
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            walker.error(field.value(), field.path(), "the interval must be at least 1s; got "
                    + Durations.format(interval));
            return false;
        }
        return true;
    }

    /** Checks an active health check path: starts with "/", no spaces or control characters. */
    static String checkHealthPath(String path) throws BadValue {
        if (!path.startsWith("/")) {
            throw new BadValue("a health check path starts with \"/\", as in /healthz; got \"" + path + "\"");
        }
        if (path.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
            throw new BadValue("a health check path cannot contain spaces, control or non-ASCII characters; "
                    + "percent-encode them");
        }
        return path;
    }

    /** A rate limit, or {@code rate_limit: off} (none, where the site has one): nothing inside either way. */
    private Optional<RateLimit> rateLimitOrOff(Field section) {
        if (Values.isOff(section.value())) {
            return Optional.empty();
        }
        return rateLimit(section);
    }

    private Optional<RateLimit> rateLimit(Field section) {
        if (!(section.value() instanceof MappingNode)) {
            walker.typeError(section.value(), section.path(), "a mapping such as {requests: 100, per: 1m, burst: 20}");
            return Optional.empty();
        }
        Map<String, Field> fields = walker.fields(section.value(), section.path(),
                "a mapping such as {requests: 100, per: 1m, burst: 20}", RATE_LIMIT);
        Field requestsField = fields.get("requests");
        Field perField = fields.get("per");
        if (requestsField == null) {
            walker.error(section.keyNode(), section.path(), "missing \"requests\": how many requests a client may "
                    + "make in each period, as in {requests: 100, per: 1m}");
        }
        if (perField == null) {
            walker.error(section.keyNode(), section.path(), "missing \"per\": the period requests are counted over, "
                    + "as in {requests: 100, per: 1m}");
        }
        Optional<Integer> requests = Optional.ofNullable(requestsField)
                .flatMap(f -> values.integer(f, "a whole number such as 100", 1, Integer.MAX_VALUE));
        Optional<Duration> per = Optional.ofNullable(perField).flatMap(values::duration);
        Optional<Integer> burst = field(fields, "burst")
                .map(f -> values.integer(f, "a whole number such as 20", 0, Integer.MAX_VALUE))
                .orElse(Optional.of(0));
        if (requests.isEmpty() || per.isEmpty() || burst.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new RateLimit(requests.get(), per.get(), burst.get()));
    }
}
