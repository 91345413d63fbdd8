package dev.usher.cert;

import dev.usher.config.AcmeSettings;
import dev.usher.config.Site;
import dev.usher.config.TlsPolicy;
import dev.usher.config.UsherConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps a certificate for every HTTPS site: loads what the data directory holds, orders what is missing, renews
 * what is due, reloads certificate files the user replaced, and answers the TLS layer's "which certificate for this
 * name?" from memory.
 *
 * <p>Threads: {@link #certificateFor} runs on event loops and only reads volatile fields. Orders and renewals run on
 * virtual threads (they block on the network); a single timer thread schedules them. State changes happen under
 * this object's lock.
 */
public final class CertManager implements CertificateSource, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CertManager.class.getName());
    /** Re-evaluate a certificate at least this often: a CA's renewal window (ARI) may move, clocks may jump. */
    private static final Duration RECHECK = Duration.ofHours(6);

    private final CertStorage store;
    private final ChallengeAnswers answers;
    private final Retry retry;
    /** Stores new certificates, and again later when the data directory refused one. */
    private final StoreRetry storing;
    private final Duration filePoll;
    /** The time renewals are decided by: the system clock, or a test's that jumps. */
    private final Clock clock;
    /** Re-evaluate a certificate at least this often ({@link #RECHECK}; shorter in tests). */
    private final Duration recheck;
    /** Null until {@link #start}; the timer thread and the virtual threads that order and renew. */
    private volatile CertThreads threads;
    private volatile State state = State.NEW;
    /** {@code tls: {cert, key}} files as last read, shared by the names that use the same pair. */
    private final CertificatePairs pairs = new CertificatePairs();
    private volatile Map<String, ManagedName> names = Map.of();
    private LocalCa localCa;
    private final AcmeIssuers acme;
    /** Which certificate serves each HTTPS site: its own name, or {@code *.PARENT} with tls: {wildcard: true}. */
    private volatile Map<String, String> certificateOfSite = Map.of();
    /** Puts in service what others stored: a restored backup, another node's renewal. */
    private final StoredCertificates stored;

    /**
     * @param store    where certificates are kept: the data directory, or a fleet's shared storage
     * @param answers  where ACME challenge answers are published for the listeners
     * @param retry    waits between failed orders
     * @param filePoll how often {@code tls: {cert, key}} files are checked for changes
     */
    public CertManager(CertStorage store, ChallengeAnswers answers, Retry retry, Duration filePoll) {
        this(store, answers, retry, filePoll, Clock.systemUTC(), RECHECK);
    }

    /**
     * As the public constructor, deciding by {@code clock} (the local CA's leaves too) and looking at each
     * certificate at least every {@code recheck}: for tests that move the clock.
     */
    CertManager(CertStorage store, ChallengeAnswers answers, Retry retry, Duration filePoll, Clock clock,
                Duration recheck) {
        this.store = store;
        this.answers = answers;
        this.retry = retry;
        this.storing = new StoreRetry(store, retry);
        this.filePoll = filePoll;
        this.clock = clock;
        this.recheck = recheck;
        this.acme = new AcmeIssuers(store, answers);
        this.stored = new StoredCertificates(this, store, clock);
    }

    /** Where a manager is in its life: {@link #apply} needs {@link #start} first; nothing runs after {@link #close}. */
    private enum State { NEW, STARTED, CLOSED }

    /**
     * The issuer id under which certificates from the ACME CA at {@code directory} are kept in the data directory
     * ({@code certificates/<id>/<name>/}): a certificate stored there is served at start and renewed from that CA
     * when due, with no order before then ({@code usher import} stores under it).
     */
    public static String acmeIssuerId(java.net.URI directory) {
        return AcmeIssuer.idFor(directory);
    }

    /** Starts the timer thread that schedules orders, renewals and file checks. Only the first call does anything. */
    public synchronized void start() {
        if (state != State.NEW) {
            return;
        }
        threads = CertThreads.start();
        state = State.STARTED;
        if (store.shared()) {
            stored.follow(threads);
        }
    }

    /**
     * Makes the managed names those of {@code config}'s HTTPS sites. Certificates on disk (and local-CA ones, made
     * in milliseconds) are in place when this returns; ACME orders for missing ones run in the background. Names
     * whose policy and issuer did not change keep their state; removed names stop being served. A name that cannot
     * be set up (its store folder unreadable, say) is logged and retried; it never stops the others.
     */
    public synchronized void apply(UsherConfig config) {
        if (state != State.STARTED) {
            throw new IllegalStateException("certificate manager " + state.name().toLowerCase(java.util.Locale.ROOT)
                    + ": apply needs start() first, and nothing after close()");
        }
        Map<String, ManagedName> next = new HashMap<>();
        Map<String, String> ofSite = new HashMap<>();
        List<ManagedName> fresh = new ArrayList<>();
        for (Site site : config.sites()) {
            if (!site.tls().terminated()) {
                continue; // plain HTTP, or passthrough: the backend holds the certificate
            }
            String name = site.tls().certificateName(site.name());
            TlsPolicy policy = site.tls().ofCertificate();
            ofSite.put(site.name(), name);
            if (next.containsKey(name)) {
                continue; // another site under the same parent (tls: {wildcard: true}) has set it up
            }
            Issuer issuer;
            try {
                issuer = issuerFor(policy, config.acme());
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "{0}: no certificate can be had: {1}", name, e.getMessage());
                continue;
            }
            ManagedName old = names.get(name);
            if (old != null && old.sameAs(policy, issuer)) {
                next.put(name, old);
                continue;
            }
            ManagedName managed = new ManagedName(name, policy, issuer);
            next.put(name, managed);
            fresh.add(managed);
        }
        for (ManagedName old : names.values()) {
            if (next.get(old.name) != old) {
                retire(old);
            }
        }
        for (AcmeIssuer replaced : acme.keepChosen()) {
            threads.work().submit(replaced::close); // waits for its orders in flight to remove their records
        }
        names = Map.copyOf(next);
        certificateOfSite = Map.copyOf(ofSite);
        for (ManagedName managed : fresh) {
            try {
                begin(managed);
            } catch (RuntimeException e) {
                failed(managed, new IssueException("could not set up: " + e.getMessage(), e), clock.instant());
            }
        }
    }

    /** The certificate for a TLS server name: exact, then a one-label wildcard; null when there is none yet. */
    @Override
    public CertifiedKey certificateFor(String serverName) {
        Map<String, ManagedName> current = names;
        ManagedName managed = current.get(serverName);
        if (managed == null) {
            int dot = serverName.indexOf('.');
            managed = dot > 0 ? current.get("*" + serverName.substring(dot)) : null;
        }
        return managed == null ? null : managed.current;
    }

    /**
     * Orders a new certificate for {@code name} now, whatever the current one's age ({@code usher renew}). The
     * future completes with the new certificate, or exceptionally with the reason it could not be had.
     */
    public CompletableFuture<CertifiedKey> renew(String name) {
        ManagedName managed = names.get(certificateOfSite.getOrDefault(name, name));
        if (managed == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no HTTPS site named " + name));
        }
        if (managed.issuer == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(name + " uses certificate files; "
                    + "replace the files and Usher picks them up"));
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return obtain(managed, true, clock.instant());
            } catch (IssueException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, threads.work());
    }

    /**
     * Serves the stored certificate of each ACME or local-CA name whose copy in the data directory is valid and not
     * the one served now: after a backup was restored into the data directory.
     */
    public void adoptStored() {
        stored.adoptRestored();
    }

    /** The names managed now (for {@link StoredCertificates}). */
    java.util.Collection<ManagedName> managed() {
        return names.values();
    }

    /** Looks at {@code m} now rather than when its next look was due (the storage it waited for is back). */
    void checkNow(ManagedName m) {
        schedule(m, Duration.ZERO, () -> check(m));
    }

    /** The local CA's root certificate file (created on first use). */
    public synchronized Path localCaRoot() {
        return localCa().rootCertificate();
    }

    /** The status of the certificate that serves each HTTPS site, by site name. */
    public Map<String, CertificateStatus> statusBySite() {
        Map<String, CertificateStatus> byName = new HashMap<>();
        status().forEach(s -> byName.put(s.name(), s));
        Map<String, CertificateStatus> bySite = new HashMap<>();
        certificateOfSite.forEach((site, name) -> {
            CertificateStatus s = byName.get(name);
            if (s != null) {
                bySite.put(site, s);
            }
        });
        return bySite;
    }

    /** What is known about each managed name, for status pages and metrics. */
    public List<CertificateStatus> status() {
        Instant now = clock.instant();
        return names.values().stream().map(m -> m.status(now)).toList();
    }

    /** The issuer for a certificate: ACME with the global settings or the site's own DNS-01 ones, the local CA, none. */
    private Issuer issuerFor(TlsPolicy policy, AcmeSettings global) {
        return switch (policy.kind()) {
            case ACME -> acme.choose(policy.dns() == null ? global : global.withDns(policy.dns()));
            case INTERNAL -> localCa();
            case FILES, PASSTHROUGH, NONE -> null;
        };
    }

    private LocalCa localCa() {
        if (localCa == null) {
            try {
                localCa = LocalCa.open(store.local(), clock);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the local CA in " + store.local().dataDir() + ": "
                        + e.getMessage(), e);
            }
        }
        return localCa;
    }

    /** Puts a new name in service: its stored, local or file certificate now; an ACME order in the background. */
    private void begin(ManagedName m) {
        if (m.issuer == null) {
            m.certModified = -2;
            CertificateFiles.reload(m, pairs);
            m.next = threads.every(filePoll, m.safely(() -> CertificateFiles.reload(m, pairs)));
            return;
        }
        Optional<CertifiedKey> stored = store.load(m.issuer.id(), m.name);
        if (stored.isPresent() && stored.get().notAfter().isAfter(clock.instant())) {
            m.current = stored.get();
            m.currentSince = clock.instant();
            LOG.log(Level.INFO, "{0}: serving the stored certificate (sha256 {1}, valid until {2})", m.name,
                    shortHash(stored.get()), stored.get().notAfter());
            scheduleCheck(m, stored.get().renewalDue());
        } else if (m.issuer instanceof LocalCa) {
            obtainOrRetry(m, clock.instant());
        } else {
            LOG.log(Level.INFO, "{0}: no certificate yet; ordering one from {1} (TLS handshakes for this name fail "
                    + "until it arrives)", m.name, m.issuer.id());
            Instant decided = clock.instant();
            synchronized (this) {
                m.next = threads.work().submit(m.safely(() -> obtainOrRetry(m, decided)));
            }
        }
    }

    private synchronized void retire(ManagedName m) {
        m.retired = true;
        if (m.next != null) {
            m.next.cancel(false);
        }
    }

    /** Replaces what is scheduled for {@code m} (never two chains of checks for one name). */
    private synchronized void schedule(ManagedName m, Duration delay, Runnable task) {
        if (m.retired) {
            return;
        }
        if (m.next != null) {
            m.next.cancel(false);
        }
        m.next = threads.later(delay, m.safely(task));
        m.nextCheck = clock.instant().plus(delay.isNegative() ? Duration.ZERO : delay);
    }

    /** Schedules the next look at {@code m}: at {@code due}, or sooner to re-evaluate. */
    private void scheduleCheck(ManagedName m, Instant due) {
        Duration delay = Duration.between(clock.instant(), due);
        schedule(m, delay.compareTo(recheck) > 0 ? recheck : delay, () -> check(m));
    }

    /** Renews when the issuer (or the one-third rule) says it is time; otherwise looks again later. */
    private void check(ManagedName m) {
        CertifiedKey cert = m.current;
        Instant decided = clock.instant();
        if (m.retired) {
            return;
        }
        if (cert == null) {
            obtainOrRetry(m, decided);
            return;
        }
        Instant due = m.issuer.renewalTime(cert).orElse(cert.renewalDue());
        if (due.isAfter(cert.notAfter())) {
            due = cert.renewalDue(); // a suggestion past expiry is no suggestion
        }
        if (!decided.isBefore(due)) {
            LOG.log(Level.INFO, "{0}: renewing the certificate (valid until {1})", m.name, cert.notAfter());
            obtainOrRetry(m, decided);
        } else {
            scheduleCheck(m, due);
        }
    }

    private void obtainOrRetry(ManagedName m, Instant decided) {
        try {
            obtain(m, false, decided);
        } catch (IssueException e) {
            // already logged and rescheduled
        }
    }

    /**
     * Gets a certificate for {@code m} (one order at a time per name in this process, and across processes under
     * the data directory's lock), puts it in service and schedules its renewal. Unless {@code force}, nothing is
     * ordered when another attempt put a certificate in service after this one was {@code decided}, or another
     * process stored a newer one that is not yet due. On failure: logs, schedules a retry with backoff, keeps
     * serving the old certificate.
     */
    private CertifiedKey obtain(ManagedName m, boolean force, Instant decided) throws IssueException {
        m.ordering.lock();
        try {
            CertifiedKey current = m.current;
            if (!force && current != null && m.currentSince.isAfter(decided)) {
                return current;
            }
            Optional<? extends CertStorage.OrderLock> lock = store.tryLock(m.issuer.id(), m.name);
            if (lock.isEmpty()) {
                throw IssueException.heldElsewhere("another Usher process sharing " + store.where()
                        + " is ordering this name right now");
            }
            try (CertStorage.OrderLock held = lock.get()) {
                if (!force) {
                    CertifiedKey now = m.current; // another node's certificate may have been adopted meanwhile
                    if (now != current && now != null && m.currentSince.isAfter(decided)) {
                        return now;
                    }
                    Optional<CertifiedKey> stored = store.load(m.issuer.id(), m.name);
                    if (stored.isPresent() && isNewer(stored.get(), current)
                            && clock.instant().isBefore(stored.get().renewalDue())) {
                        return adopt(m, stored.get(), "another process stored a newer certificate");
                    }
                }
                CertifiedKey fresh = threads.issue(m.issuer, m.name);
                if (!storing.tryStore(m, fresh, 1)) {
                    storing.later(threads, m, fresh, 1); // serve it anyway: ordering again spends the CA's limits
                }
                return adopt(m, fresh, "new certificate from " + m.issuer.id());
            }
        } catch (IssueException e) {
            failed(m, e, clock.instant());
            throw e;
        } catch (IOException | RuntimeException e) {
            IssueException wrapped = new IssueException("could not use " + (store.shared() ? "" : "the data directory ")
                    + store.where()
                    + ": " + e, e);
            failed(m, wrapped, clock.instant());
            throw wrapped;
        } finally {
            m.ordering.unlock();
        }
    }

    /** Puts {@code cert} in service for {@code m} ({@code why}, for the log) and schedules its renewal. */
    CertifiedKey adopt(ManagedName m, CertifiedKey cert, String why) {
        Instant now = clock.instant();
        Instant due = cert.renewalDue();
        Duration wait;
        synchronized (this) {
            m.failures = 0;
            m.lastError = null;
            m.current = cert;
            m.currentSince = now;
            if (now.isBefore(due)) {
                m.dueOnArrival = 0;
                wait = null;
            } else {
                m.dueOnArrival++;
                wait = retry.after(m.dueOnArrival);
            }
        }
        LOG.log(Level.INFO, "{0}: {1} in service (sha256 {2}, valid until {3})", m.name, why, shortHash(cert),
                cert.notAfter());
        if (wait == null) {
            scheduleCheck(m, due);
        } else {
            // Renewing at once would order in a loop until the CA's rate limit stops it.
            LOG.log(Level.ERROR, "{0}: the new certificate (valid {1} to {2}) is already due for renewal; is this "
                    + "machine''s clock right? Next look in {3}", m.name, cert.notBefore(), cert.notAfter(),
                    Durations.human(wait));
            schedule(m, wait, () -> check(m));
        }
        return cert;
    }

    private void failed(ManagedName m, IssueException e, Instant decided) {
        Duration wait;
        synchronized (this) {
            m.failures++;
            m.lastError = e.getMessage();
            wait = retry.after(m.failures);
            if (e.retryAfter().isPresent()) {
                Duration asked = Duration.between(clock.instant(), e.retryAfter().get());
                wait = asked.compareTo(wait) > 0 ? asked : wait;
            }
        }
        CertifiedKey cert = m.current;
        // the storage logs its own outage once; a line per name and attempt would bury it
        Level level = m.failures > 1 && (e.getCause() instanceof StorageUnavailableException || e.isHeldElsewhere())
                ? Level.DEBUG : e.isHeldElsewhere() ? Level.INFO : Level.WARNING;
        LOG.log(level, "{0}: could not get a certificate (attempt {1}): {2}; trying again in {3}{4}", m.name,
                m.failures, e.getMessage(), Durations.human(wait), cert == null ? ""
                        : "; the current certificate is served meanwhile (valid until " + cert.notAfter() + ")");
        schedule(m, wait, () -> obtainOrRetry(m, decided));
    }

    static boolean isNewer(CertifiedKey candidate, CertifiedKey current) {
        return current == null || candidate.notAfter().isAfter(current.notAfter());
    }

    private static String shortHash(CertifiedKey cert) {
        return cert.sha256().substring(0, 16) + "…";
    }

    /**
     * Stops scheduling; orders in flight are abandoned (their names are ordered again at the next start), after they
     * removed the DNS-01 records they had put in place (a bounded wait).
     */
    @Override
    public void close() {
        List<AcmeIssuer> issuers;
        synchronized (this) {
            CertThreads running = threads;
            state = State.CLOSED;
            if (running != null) {
                running.close();
            }
            issuers = acme.inUse();
        }
        issuers.forEach(AcmeIssuer::close);
    }
}
