package dev.usher.rules;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * One site's {@code basic_auth}. A request whose credentials were verified in the last ten minutes passes inline;
 * otherwise bcrypt runs on {@link PasswordVerifier}'s pool and the answer comes later. Every bcrypt run is charged
 * to the client IP first ({@value #ATTEMPTS_PER_MINUTE} a minute, a success gives its charge back), so one address
 * cannot keep the pool busy. An unknown user name costs the same bcrypt run as a known one, so response times do
 * not tell which user names exist.
 */
final class BasicAuth {
    static final int ATTEMPTS_PER_MINUTE = 10;
    private static final long ATTEMPT_INTERVAL = 60_000_000_000L / ATTEMPTS_PER_MINUTE;
    private static final long ATTEMPT_TOLERANCE = (ATTEMPTS_PER_MINUTE - 1) * ATTEMPT_INTERVAL;
    /** All sites share one attempt budget per IP: an attacker gains nothing by spreading over sites. */
    private static final int ATTEMPT_SPACE = 0;

    /** What the check decided. */
    enum Kind { PASS, DENY, LOCKED_OUT, BUSY }

    /** The decision, with the Retry-After seconds for {@code LOCKED_OUT}. */
    record Outcome(Kind kind, long retryAfterSeconds) {
    }

    private record Account(String hash, byte[] hashBytes) {
    }

    private final Map<String, Account> accounts;
    private final Account decoy;
    private final String challenge;
    private final AuthCache cache;
    private final TokenBuckets attempts;
    private final PasswordVerifier verifier;
    private final LongSupplier nanoTime;
    private final Outcome pass = new Outcome(Kind.PASS, 0);
    private final Outcome deny = new Outcome(Kind.DENY, 0);
    private final Outcome busy = new Outcome(Kind.BUSY, 1);
    private final CompletableFuture<Outcome> passNow = CompletableFuture.completedFuture(pass);
    private final CompletableFuture<Outcome> denyNow = CompletableFuture.completedFuture(deny);
    private final CompletableFuture<Outcome> busyNow = CompletableFuture.completedFuture(busy);

    /** @param users user name → bcrypt hash, not empty */
    BasicAuth(String realm, Map<String, String> users, RuleServices services) {
        Map<String, Account> accounts = new HashMap<>();
        users.forEach((user, hash) -> accounts.put(user, new Account(hash, AuthCache.hashBytes(hash))));
        this.accounts = Map.copyOf(accounts);
        // Unknown users are checked against the costliest hash, so no user name answers faster than a real one.
        this.decoy = accounts.values().stream()
                .max(java.util.Comparator.comparingInt(account -> cost(account.hash()))).orElseThrow();
        this.challenge = "Basic realm=\"" + quote(realm) + "\", charset=\"UTF-8\"";
        this.cache = services.authCache;
        this.attempts = services.authAttempts;
        this.verifier = services.verifier;
        this.nanoTime = services.nanoTime;
    }

    /** The WWW-Authenticate value for a 401. */
    String challenge() {
        return challenge;
    }

    /**
     * Checks the request's credentials. The future is already complete unless bcrypt has to run, in which case it
     * completes on a bcrypt thread. Never blocks.
     */
    CompletableFuture<Outcome> authenticate(HttpHeaders headers, long hi, long lo) {
        byte[] credentials = BasicCredentials.decode(headers.get(HttpHeaderNames.AUTHORIZATION));
        if (credentials == null) {
            // The usual first request of a browser: no charge, just the challenge.
            return denyNow;
        }
        Account account = accounts.get(BasicCredentials.user(credentials));
        boolean known = account != null;
        Account against = known ? account : decoy;
        byte[] key = cache.key(against.hashBytes(), credentials);
        long now = nanoTime.getAsLong();
        if (known && cache.verified(key, now)) {
            Arrays.fill(credentials, (byte) 0);
            return passNow;
        }
        boolean charged = false;
        if (!verifier.isPending(key)) {
            long wait = attempts.take(ATTEMPT_SPACE, hi, lo, now, ATTEMPT_INTERVAL, ATTEMPT_TOLERANCE);
            if (wait > 0) {
                Arrays.fill(credentials, (byte) 0);
                return CompletableFuture.completedFuture(
                        new Outcome(Kind.LOCKED_OUT, RateLimiter.retryAfterSeconds(wait)));
            }
            charged = true;
        }
        char[] password = BasicCredentials.password(credentials);
        Arrays.fill(credentials, (byte) 0);
        CompletableFuture<Boolean> check = verifier.verify(key, against.hash(), password);
        if (check == null) {
            refundIf(charged, hi, lo);
            return busyNow;
        }
        boolean refund = charged;
        return check.thenApply(match -> {
            if (match == null) {
                refundIf(refund, hi, lo);
                return busy;
            }
            if (match && known) {
                cache.remember(key, nanoTime.getAsLong());
                refundIf(refund, hi, lo);
                return pass;
            }
            return deny;
        });
    }

    private void refundIf(boolean charged, long hi, long lo) {
        if (charged) {
            attempts.refund(ATTEMPT_SPACE, hi, lo, ATTEMPT_INTERVAL);
        }
    }

    /** Host names hold no quotes or backslashes, but a realm is a quoted-string all the same. */
    /** The cost of a {@code $2y$NN$...} hash; 0 when unreadable (the loader refuses such hashes anyway). */
    private static int cost(String hash) {
        try {
            return Integer.parseInt(hash.substring(4, 6));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static String quote(String realm) {
        return realm.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
