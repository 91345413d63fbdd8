package dev.usher.dns;

import dev.usher.config.DnsSettings;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Answers DNS-01 challenges through one {@code dns:} setting: for each name of an order, finds where
 * {@code _acme-challenge.NAME} really lives (CNAMEs followed) and its zone (SOA), has the provider add the TXT
 * value, waits until every authoritative server of the zone answers with it, and always removes it again: after
 * validation, after a failure, and when Usher stops.
 *
 * <p>One {@link Round} per order: {@code present} (all names at once), {@code awaitPropagation}, then the CA
 * validates, then {@code close}. Rounds of different orders run side by side. Nothing here loads until DNS-01 is
 * configured, so dnsjava costs no memory otherwise.
 */
public final class DnsChallenges implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DnsChallenges.class.getName());
    /** How long {@link #close} waits for rounds in flight to remove their records. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(30);

    private final DnsSettings settings;
    private final DnsProvider provider;
    private final DnsLookups lookups;
    private final Propagation propagation;
    private final AutoCloseable resources;
    private final Set<Round> open = ConcurrentHashMap.newKeySet();

    private DnsChallenges(DnsSettings settings, DnsProvider provider, DnsLookups lookups, AutoCloseable resources) {
        this.settings = settings;
        this.provider = provider;
        this.lookups = lookups;
        this.propagation = new Propagation(lookups, settings.propagationTimeout(), settings.nameserverPort());
        this.resources = resources;
    }

    /** The provider of {@code settings}, and the resolvers that find zones. */
    public static DnsChallenges open(DnsSettings settings) throws DnsException {
        DnsLookups lookups = new DnsLookups(settings.resolvers());
        return switch (settings.provider()) {
            case DnsSettings.Rfc2136 r -> new DnsChallenges(settings, new Rfc2136Provider(r), lookups, () -> { });
            case DnsSettings.Cloudflare c -> {
                JsonApi api = new JsonApi("Cloudflare");
                yield new DnsChallenges(settings, new CloudflareProvider(c, api), lookups, api);
            }
            case DnsSettings.AcmeDns a -> {
                JsonApi api = new JsonApi("acme-dns");
                yield new DnsChallenges(settings, new AcmeDnsProvider(a, api), lookups, api);
            }
            case DnsSettings.Exec e -> new DnsChallenges(settings, new ExecProvider(e), lookups, () -> { });
        };
    }

    /**
     * A TXT value a CA asked for.
     *
     * @param domain the identifier being validated, without {@code *.} ({@code example.com} for {@code *.example.com})
     * @param value  the challenge's digest
     */
    public record Wanted(String domain, String value) {
    }

    /** A new round for one order's challenges. */
    public Round round() {
        Round round = new Round();
        open.add(round);
        return round;
    }

    /** The records of one order: presented together, checked together, removed together. */
    public final class Round implements AutoCloseable {
        /** Each record with what its provider needs to remove it ("" until the add answered). */
        private final List<Presented> presented = new CopyOnWriteArrayList<>();
        private final AtomicBoolean closing = new AtomicBoolean();
        private final CountDownLatch closed = new CountDownLatch(1);

        private Round() {
        }

        private static final class Presented {
            final ChallengeRecord record;
            volatile String handle = "";

            Presented(ChallengeRecord record) {
                this.record = record;
            }
        }

        /**
         * Adds every value at once. A failure of any is thrown (the provider's own message) after all have ended;
         * the ones added, and the ones that may have been, are removed by {@link #close}.
         */
        public void present(List<Wanted> wanted) throws DnsException, InterruptedException {
            List<Future<Void>> adds = new ArrayList<>();
            try (ExecutorService each = Executors.newVirtualThreadPerTaskExecutor()) {
                for (Wanted w : wanted) {
                    adds.add(each.submit(() -> {
                        add(w);
                        return null;
                    }));
                }
                DnsException first = null;
                for (Future<Void> add : adds) {
                    try {
                        add.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof InterruptedException interrupted) {
                            throw interrupted;
                        }
                        DnsException failure = e.getCause() instanceof DnsException d ? d
                                : new DnsException(String.valueOf(e.getCause()), e.getCause());
                        if (first == null) {
                            first = failure;
                        } else if (!first.getMessage().equals(failure.getMessage())) {
                            first.addSuppressed(failure);
                        }
                    }
                }
                if (first != null) {
                    throw first;
                }
            }
        }

        private void add(Wanted w) throws DnsException, InterruptedException {
            String name = lookups.followCnames("_acme-challenge." + w.domain());
            String zone = settings.zone() != null ? settings.zone() : lookups.zoneOf(name);
            if (!name.equals(zone) && !name.endsWith("." + zone)) {
                throw new DnsException(name + " is not in the zone " + zone + " (acme.dns.zone); leave zone out to "
                        + "have it found");
            }
            Presented p = new Presented(new ChallengeRecord(name, zone, w.value()));
            presented.add(p); // before the add: an add that times out may have happened all the same
            p.handle = provider.present(p.record);
            LOG.log(Level.INFO, "{0}: added {1} in the zone {2} ({3})", w.domain(), p.record.describe(), zone,
                    settings.provider().name());
        }

        /** Returns once every authoritative server answers with every value presented. */
        public void awaitPropagation() throws DnsException, InterruptedException {
            propagation.await(presented.stream().map(p -> p.record).toList());
        }

        /**
         * Removes every record of the round, all at once; failures are logged, never thrown. The second call waits
         * for the first. Runs even when the calling thread was interrupted (Usher stopping): a record left behind
         * would stay in the user's zone.
         */
        @Override
        public void close() {
            if (!closeIfUnclaimed()) {
                awaitClosed();
            }
        }

        /** Removes the records unless another thread is at it already; true when this call did. */
        private boolean closeIfUnclaimed() {
            if (!closing.compareAndSet(false, true)) {
                return false;
            }
            boolean interrupted = Thread.interrupted();
            try (ExecutorService each = Executors.newVirtualThreadPerTaskExecutor()) {
                for (Presented p : presented) {
                    each.submit(() -> remove(p));
                }
            } finally {
                open.remove(this);
                closed.countDown();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return true;
        }

        private void remove(Presented p) {
            try {
                provider.cleanUp(p.record, p.handle);
                LOG.log(Level.INFO, "removed {0} from the zone {1}", p.record.describe(), p.record.zone());
            } catch (DnsException e) {
                LOG.log(Level.WARNING, "could not remove {0} from the zone {1}: {2}; it is harmless, but remove it "
                        + "by hand", p.record.describe(), p.record.zone(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void awaitClosed() {
            boolean interrupted = Thread.interrupted();
            try {
                if (!closed.await(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.log(Level.WARNING, "DNS-01 records of an order are still being removed after {0} s",
                            CLOSE_GRACE.toSeconds());
                }
            } catch (InterruptedException e) {
                interrupted = true;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Waits up to 30 s for rounds in flight to remove their records (their orders are being stopped), removes those
     * of rounds nobody is closing itself, then lets go of the provider's connections.
     */
    @Override
    public void close() {
        long deadline = System.nanoTime() + CLOSE_GRACE.toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Round round : List.copyOf(open)) {
            round.closeIfUnclaimed();
        }
        try {
            resources.close();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "closing the DNS provider: {0}", e.toString());
        }
    }
}
