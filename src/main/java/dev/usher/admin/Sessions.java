package dev.usher.admin;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Logged-in admin sessions, kept in memory only (a restart logs everyone out). A session id and its CSRF token are
 * 256 random bits each; a session ends after 12 hours without a request, at logout, or when the password changes. Also: the CSRF token of an
 * endpoint without a password (loopback only), and the per-address throttle of password attempts.
 *
 * <p>Thread-safe.
 */
final class Sessions {
    static final String COOKIE = "usher_session";
    static final Duration IDLE = Duration.ofHours(12);
    /** Wrong passwords allowed per client address within {@link #THROTTLE_WINDOW}; more answer 429. */
    static final int FAILURES_ALLOWED = 5;
    static final Duration THROTTLE_WINDOW = Duration.ofMinutes(5);
    private static final int MAX_SESSIONS = 1000;
    private static final int MAX_TRACKED = 10_000;

    /** One logged-in browser. */
    static final class Session {
        final String id;
        final String csrf;
        /** The password hash this session logged in with: a changed password ends it. */
        final String credential;
        volatile long lastSeen;

        Session(String id, String csrf, String credential, long now) {
            this.id = id;
            this.csrf = csrf;
            this.credential = credential;
            this.lastSeen = now;
        }
    }

    private record Failures(int count, long since) {
    }

    private final Supplier<String> passwordHash;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Map<String, Failures> failures = new ConcurrentHashMap<>();
    /** The CSRF token when no password is configured: one per process. */
    private final String openCsrf = token();

    /** {@code passwordHash}: the configured hash, or null (read per request: a reload may change it). */
    Sessions(Supplier<String> passwordHash) {
        this.passwordHash = passwordHash;
    }

    String openCsrf() {
        return openCsrf;
    }

    /** A new session. */
    Session start() {
        long now = System.nanoTime();
        if (sessions.size() >= MAX_SESSIONS) {
            sessions.values().removeIf(s -> expired(s, now));
            if (sessions.size() >= MAX_SESSIONS) {
                sessions.clear(); // a flood of logins; everyone logs in again
            }
        }
        Session s = new Session(token(), token(), passwordHash.get(), now);
        sessions.put(s.id, s);
        return s;
    }

    /** The live session named by the {@code Cookie} header, or null; a use keeps it alive. */
    Session find(String cookieHeader) {
        String id = cookie(cookieHeader, COOKIE);
        if (id == null) {
            return null;
        }
        Session s = sessions.get(id);
        long now = System.nanoTime();
        if (s == null || expired(s, now) || !Objects.equals(s.credential, passwordHash.get())) {
            if (s != null) {
                sessions.remove(id);
            }
            return null;
        }
        s.lastSeen = now;
        return s;
    }

    void end(Session s) {
        if (s != null) {
            sessions.remove(s.id);
        }
    }

    /**
     * Counts a password attempt by {@code client} as failed before it is checked, and says whether it may be checked
     * at all: counted first, in one atomic step, so that many attempts sent at once cannot all pass before the
     * first failure is recorded. {@link #succeeded} forgets the count when the password was right.
     */
    boolean tryAttempt(String client) {
        if (failures.size() > MAX_TRACKED) {
            failures.clear();
        }
        long now = System.nanoTime();
        boolean[] allowed = {false};
        failures.compute(client, (k, f) -> {
            if (f == null || now - f.since() > THROTTLE_WINDOW.toNanos()) {
                allowed[0] = true;
                return new Failures(1, now);
            }
            if (f.count() >= FAILURES_ALLOWED) {
                return f;
            }
            allowed[0] = true;
            return new Failures(f.count() + 1, f.since());
        });
        return allowed[0];
    }

    void succeeded(String client) {
        failures.remove(client);
    }

    /** Constant-time comparison of a token the client sent with the expected one. */
    static boolean same(String sent, String expected) {
        return sent != null && expected != null && MessageDigest.isEqual(sent.getBytes(StandardCharsets.UTF_8),
                expected.getBytes(StandardCharsets.UTF_8));
    }

    private static boolean expired(Session s, long now) {
        return now - s.lastSeen > IDLE.toNanos();
    }

    private String token() {
        byte[] bits = new byte[32];
        random.nextBytes(bits);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
    }

    /** The value of cookie {@code name} in a {@code Cookie} header, or null. */
    static String cookie(String header, String name) {
        if (header == null) {
            return null;
        }
        for (String part : header.split(";")) {
            String p = part.strip();
            if (p.startsWith(name + "=")) {
                return p.substring(name.length() + 1);
            }
        }
        return null;
    }
}
