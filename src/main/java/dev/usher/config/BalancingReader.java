package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads how backends are picked and watched ({@code policy:} and {@code health:}), for a site, a stream or a
 * passthrough site. An HTTP site's active checks GET a path ({@code health: {path: /healthz}}); a relay's backends
 * are checked by connecting over TCP ({@code health: {interval: 10s}}), since Usher does not speak their protocol.
 */
final class BalancingReader {
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
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
    private static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(2);

    private final NodeWalker walker;
    private final Values values;

    BalancingReader(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    /**
     * @param policyField the {@code policy:} field, or null
     * @param healthField the {@code health:} field when it has something in it
     * @param tcpChecks   true for relayed backends: active checks connect (on with {@code interval} or
     *                    {@code timeout}), and a {@code path} is an error
     */
    Balancing read(Field policyField, Optional<Field> healthField, boolean tcpChecks) {
        return read(policyField, healthField, tcpChecks, Balancing.DEFAULTS);
    }

    /** As the other {@code read}, with what is not written taken from {@code d} (a path's site). */
    Balancing read(Field policyField, Optional<Field> healthField, boolean tcpChecks, Balancing d) {
        Balancing.Policy policy = Optional.ofNullable(policyField)
                .flatMap(f -> values.word(f, "policy", POLICIES, POLICY_ALIASES))
                .map(p -> Balancing.Policy.valueOf(p.toUpperCase(Locale.ROOT))).orElse(d.policy());
        if (healthField.isEmpty()) {
            return new Balancing(policy, d.maxFails(), d.failTimeout(), d.health());
        }
        Field section = healthField.get();
        Map<String, Field> fields = walker.fields(section.value(), section.path(), tcpChecks
                ? "a mapping such as {interval: 10s, timeout: 2s}" : "a mapping such as {path: /healthz, interval: 10s}",
                HEALTH);
        int maxFails = Optional.ofNullable(fields.get("max_fails"))
                .flatMap(f -> values.integer(f, "a whole number such as 3", 1, Integer.MAX_VALUE))
                .orElse(d.maxFails());
        Duration failTimeout = Optional.ofNullable(fields.get("fail_timeout")).flatMap(values::duration)
                .orElse(d.failTimeout());
        return new Balancing(policy, maxFails, failTimeout, tcpChecks ? tcpCheck(fields) : httpCheck(fields));
    }

    /** Active checks, on when {@code path} is given; null when off or wrong. */
    private Balancing.HealthCheck httpCheck(Map<String, Field> fields) {
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
        return timing(interval, timeout).flatMap(t -> checkPath.map(p -> new Balancing.HealthCheck(p, t[0], t[1])))
                .orElse(null);
    }

    /** TCP connect checks, on when {@code interval} or {@code timeout} is given; null when off or wrong. */
    private Balancing.HealthCheck tcpCheck(Map<String, Field> fields) {
        Field path = fields.get("path");
        if (path != null) {
            walker.error(path.keyNode(), path.path(), "these backends are checked by connecting to them over TCP "
                    + "(Usher does not speak their protocol), so there is no path; write health: {interval: 10s}");
            return null;
        }
        Field interval = fields.get("interval");
        Field timeout = fields.get("timeout");
        if (interval == null && timeout == null) {
            return null;
        }
        return timing(interval, timeout).map(t -> new Balancing.HealthCheck(null, t[0], t[1])).orElse(null);
    }

    /** The interval and timeout of active checks, with their defaults; empty after an error. */
    private Optional<Duration[]> timing(Field interval, Field timeout) {
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
            return Optional.empty();
        }
        if (every.isEmpty() || wait.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Duration[] {every.get(), wait.get()});
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
}
