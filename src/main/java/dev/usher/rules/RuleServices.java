package dev.usher.rules;

import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Shared, long-lived state behind {@link SiteRules}: the rate-limit table, the basic-auth verification cache and
 * attempt limiter, and a small executor for bcrypt. One per running Usher; it survives config reloads, so a reload
 * neither forgives a client over its limit nor makes every user's password be checked again.
 *
 * <p>Memory is fixed at creation, whatever the traffic: {@value #RATE_SLOTS} rate-limit buckets (512 KiB),
 * {@value #ATTEMPT_SLOTS} login-attempt buckets and {@value AuthCache#SLOTS} verified credentials. Thread-safe.
 * {@link #close()} stops the bcrypt threads.
 */
public final class RuleServices implements AutoCloseable {
    static final int RATE_SLOTS = 16_384;
    static final int ATTEMPT_SLOTS = 4_096;

    final LongSupplier nanoTime;
    final TokenBuckets rateBuckets;
    final TokenBuckets authAttempts;
    final AuthCache authCache = new AuthCache();
    final PasswordVerifier verifier;
    final LocalAnswers answers = new LocalAnswers();
    /** CrowdSec's bans: replaced by the decision stream, read by every site's rules and every listener. */
    public final Bans bans = new Bans();
    /**
     * Rate-limit buckets are keyed by site name, not by compiled object, so they carry over a reload. 0 is the
     * attempt limiter's space; sites start at 1. Grows only with distinct site names ever configured.
     */
    private final ConcurrentHashMap<String, Integer> siteIds = new ConcurrentHashMap<>();
    private final AtomicInteger nextSiteId = new AtomicInteger(1);

    /** The services Usher runs with: the system clock and a two-thread bcrypt pool. */
    public RuleServices() {
        this(System::nanoTime, PasswordVerifier.defaultPool());
    }

    /** For tests: a clock to move by hand, a pool to control. */
    RuleServices(LongSupplier nanoTime, ExecutorService bcryptPool) {
        this.nanoTime = nanoTime;
        SecureRandom random = new SecureRandom();
        this.rateBuckets = new TokenBuckets(RATE_SLOTS, random.nextLong());
        this.authAttempts = new TokenBuckets(ATTEMPT_SLOTS, random.nextLong());
        this.verifier = new PasswordVerifier(bcryptPool);
    }

    int siteId(String siteName) {
        return siteIds.computeIfAbsent(siteName, name -> nextSiteId.getAndIncrement());
    }

    /** Stops the bcrypt threads; checks waiting for one are answered 503. */
    @Override
    public void close() {
        verifier.close();
    }
}
