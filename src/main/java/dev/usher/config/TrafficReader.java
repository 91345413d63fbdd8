package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Reads a site's traffic options ({@link SiteTraffic}) from the fields of its long form: compression, balancing and
 * health, header edits, security headers, redirect or fixed answer, access control and rate limit. Absent options
 * take the defaults of {@link SiteTraffic#DEFAULTS}; a mapping left empty ({@code health:}) counts as absent.
 */
final class TrafficReader {
    private static final Keys RATE_LIMIT = Keys.of("requests", "per", "burst")
            .withAliases(Map.of("rate", "requests", "limit", "requests", "count", "requests", "period", "per",
                    "window", "per", "interval", "per", "every", "per"));
    private static final Keys WAIT = Keys.of("for", "max_requests")
            .withAliases(Map.of("timeout", "for", "time", "for", "duration", "for", "max", "max_requests",
                    "queue", "max_requests", "limit", "max_requests", "requests", "max_requests"));
    /** Waiting longer than this for a backend is no longer riding out a restart. */
    private static final Duration MAX_WAIT = Duration.ofMinutes(5);
    private static final String FORWARDS_ONLY = " only applies to a site that forwards to backends (to:)";

    private final NodeWalker walker;
    private final Values values;
    private final java.nio.file.Path baseDir;

    /** {@code baseDir}: where relative paths (a root, page files) start. */
    TrafficReader(NodeWalker walker, Values values, java.nio.file.Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
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
            for (String key : List.of("policy", "health", "request_headers", "wait_for_backend")) {
                Field field = fields.get(key);
                if (field != null) {
                    walker.error(field.keyNode(), field.path(), field.key() + FORWARDS_ONLY);
                }
            }
        }
        boolean compress = field(fields, "gzip").flatMap(values::bool).orElse(base.compress());
        boolean security = field(fields, "security_headers").flatMap(values::bool).orElse(base.securityHeaders());
        Balancing balancing = new BalancingReader(walker, values).read(fields.get("policy"),
                section(fields.get("health")), false, base.balancing());
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
        // Read even without root: (index:, spa: and the like are then reported as out of place).
        StaticRoot ownRoot = new StaticRootReader(walker, values, baseDir).read(fields);
        StaticRoot files = fields.containsKey("root") ? ownRoot : base.files();
        ForwardAuth forwardAuth = field(fields, "forward_auth")
                .flatMap(new ForwardAuthReader(walker, values, baseDir)::read).orElse(base.forwardAuth());
        PagesReader pages = new PagesReader(walker, values, baseDir);
        Maintenance maintenance = field(fields, "maintenance").flatMap(pages::maintenance)
                .orElse(base.maintenance());
        ErrorPageSet errorPages = field(fields, "error_pages").map(pages::errorPages)
                .map(own -> own.over(base.errorPages())).orElse(base.errorPages());
        BackendWait wait = !forwards ? null : section(fields.get("wait_for_backend")).flatMap(this::backendWait)
                .orElse(base.waitForBackend());
        return new SiteTraffic(compress, balancing, requestHeaders, responseHeaders, security, redirect, respond,
                access, rateLimit, base.readTimeout(), base.writeTimeout(), base.websocketIdle(),
                base.keepAliveIdle(), files, forwardAuth, maintenance, errorPages, wait);
    }

    /** {@code wait_for_backend: 10s} or {@code {for: 10s, max_requests: 256}}. */
    private Optional<BackendWait> backendWait(Field section) {
        Field time = section;
        Optional<Integer> max = Optional.of(BackendWait.DEFAULT_MAX_REQUESTS);
        if (section.value() instanceof MappingNode) {
            Map<String, Field> fields = walker.fields(section.value(), section.path(),
                    "a duration such as 10s, or {for: 10s, max_requests: 256}", WAIT);
            time = fields.get("for");
            if (time == null) {
                walker.error(section.keyNode(), section.path(), "missing \"for\": how long a request may wait, "
                        + "as in {for: 10s}");
                return Optional.empty();
            }
            max = field(fields, "max_requests")
                    .map(f -> values.integer(f, "a whole number such as 256", 1, 100_000))
                    .orElse(max);
        }
        Field timeField = time;
        Optional<Duration> wait = values.duration(time).filter(w -> {
            if (w.compareTo(MAX_WAIT) > 0) {
                walker.error(timeField.value(), timeField.path(), "too long; a request waits at most 5m for a "
                        + "backend (a client would have given up)");
                return false;
            }
            return true;
        });
        return wait.isPresent() && max.isPresent() ? Optional.of(new BackendWait(wait.get(), max.get()))
                : Optional.empty();
    }

    private static Optional<Field> field(Map<String, Field> fields, String key) {
        return Optional.ofNullable(fields.get(key));
    }

    /** The field when present with something in it; a mapping written with no value counts as absent. */
    private static Optional<Field> section(Field field) {
        return Optional.ofNullable(field).filter(f -> !NodeWalker.isNull(f.value()));
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
