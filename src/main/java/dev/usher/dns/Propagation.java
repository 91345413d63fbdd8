package dev.usher.dns;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Waits until every authoritative server of each record's zone answers with the record's value, asking each one
 * directly (never a recursive resolver, whose cache may say anything), every two seconds up to a deadline. A
 * server counts once one of its addresses answers authoritatively with the value. Telling the CA before this would
 * let its validation meet a secondary that has not transferred the zone yet: the failure Traefik users know.
 */
final class Propagation {
    private static final System.Logger LOG = System.getLogger(Propagation.class.getName());
    private static final Duration INTERVAL = Duration.ofSeconds(2);

    private final DnsLookups lookups;
    private final Duration timeout;
    private final int port;

    /**
     * @param timeout how long all servers may take together
     * @param port    the port authoritative servers are asked on (53 but in a test set-up)
     */
    Propagation(DnsLookups lookups, Duration timeout, int port) {
        this.lookups = lookups;
        this.timeout = timeout;
        this.port = port;
    }

    /** One record on one authoritative server, and what that server said last. */
    private static final class Check {
        final ChallengeRecord record;
        final DnsLookups.Nameserver server;
        String last = "not asked yet";

        Check(ChallengeRecord record, DnsLookups.Nameserver server) {
            this.record = record;
            this.server = server;
        }
    }

    /** Returns once every authoritative server answers with every record; throws when the time runs out. */
    void await(List<ChallengeRecord> records) throws DnsException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Map<String, List<DnsLookups.Nameserver>> servers = new HashMap<>();
        List<Check> pending = new ArrayList<>();
        for (ChallengeRecord record : records) {
            List<DnsLookups.Nameserver> ofZone = servers.get(record.zone());
            if (ofZone == null) {
                ofZone = lookups.nameservers(record.zone());
                servers.put(record.zone(), ofZone);
            }
            for (DnsLookups.Nameserver server : ofZone) {
                pending.add(new Check(record, server));
            }
        }
        boolean told = false;
        while (true) {
            pending = stillMissing(pending);
            if (pending.isEmpty()) {
                LOG.log(Level.INFO, "{0}: answered by every authoritative server ({1}) after {2} s", names(records),
                        servers.values().stream().flatMap(List::stream).map(DnsLookups.Nameserver::name).distinct()
                                .sorted().toList(), String.format(java.util.Locale.ROOT, "%.1f",
                                (System.nanoTime() - start) / 1e9));
                return;
            }
            if (!told) {
                told = true;
                Check first = pending.get(0);
                LOG.log(Level.INFO, "waiting for {0} on {1} ({2}); asking every {3} s for up to {4} s",
                        first.record.describe(), first.server.name(), first.last, INTERVAL.toSeconds(),
                        timeout.toSeconds());
            }
            long left = deadline - System.nanoTime();
            if (left < INTERVAL.toNanos()) {
                throw new DnsException(timeoutMessage(pending));
            }
            Thread.sleep(INTERVAL);
        }
    }

    /** Asks every pending server at once; gives back those that do not answer with the value yet. */
    private List<Check> stillMissing(List<Check> pending) throws InterruptedException {
        Map<Check, Future<String>> asked = new LinkedHashMap<>();
        try (ExecutorService queries = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Check check : pending) {
                asked.put(check, queries.submit(() -> ask(check)));
            }
            List<Check> missing = new ArrayList<>();
            for (Map.Entry<Check, Future<String>> e : asked.entrySet()) {
                String problem;
                try {
                    problem = e.getValue().get();
                } catch (ExecutionException failed) {
                    problem = "the query failed: " + failed.getCause();
                }
                if (problem != null) {
                    e.getKey().last = problem;
                    missing.add(e.getKey());
                }
            }
            return missing;
        }
    }

    /** Null when one of the server's addresses answers with the value; otherwise what the last one said. */
    private String ask(Check check) throws InterruptedException {
        String problem = null;
        for (InetAddress address : check.server.addresses()) {
            InetSocketAddress at = new InetSocketAddress(address, port);
            DnsLookups.TxtAnswer answer = DnsLookups.txtAt(at, check.record.name());
            if (answer.usable() && answer.values().contains(check.record.value())) {
                return null;
            }
            problem = DnsLookups.show(at) + (!answer.usable() ? " " + answer.problem()
                    : answer.values().isEmpty() ? " has no TXT record there yet"
                    : " answers with other values only (" + answer.values().size() + ")");
        }
        return problem;
    }

    private String timeoutMessage(List<Check> pending) {
        StringBuilder text = new StringBuilder("after ").append(timeout.toSeconds()).append(" s not every "
                + "authoritative server answers with the challenge record: ");
        for (int i = 0; i < pending.size(); i++) {
            Check c = pending.get(i);
            text.append(i == 0 ? "" : "; ").append(c.server.name()).append(" lacks ").append(c.record.describe())
                    .append(" (").append(c.last).append(')');
        }
        return text.append(". A secondary that transfers the zone late, or a provider that publishes slowly, "
                + "needs a longer acme.dns.propagation_timeout").toString();
    }

    private static List<String> names(List<ChallengeRecord> records) {
        return records.stream().map(ChallengeRecord::describe).distinct().toList();
    }
}
