package dev.usher.it;

import dev.usher.testing.RunningUsher;
import dev.usher.testing.RawHttp;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three broken backends under concurrent load next to a healthy one: one that accepts and never answers (504 after
 * the response timeout), one that sends half a response and resets (the client connection is closed before the
 * declared length: the only honest signal once a head has gone out), and one that is up a second and down a second
 * (200 or 502, nothing else). Only their own requests fail: every request to the healthy site is answered 200.
 * Afterwards nothing has leaked: the process's descriptors and heap are back to their level after a warm-up round.
 */
class MisbehavingBackendsTest {
    static final int CLIENTS_PER_SITE = 4;

    /** Outcome → count, per site. */
    private final Map<String, Map<String, LongAdder>> outcomes = new ConcurrentHashMap<>();

    private void count(String site, String outcome) {
        outcomes.computeIfAbsent(site, s -> new ConcurrentHashMap<>())
                .computeIfAbsent(outcome, o -> new LongAdder()).increment();
    }

    private Map<String, Long> outcomes(String site) {
        Map<String, Long> result = new TreeMap<>();
        outcomes.getOrDefault(site, Map.of()).forEach((k, v) -> result.put(k, v.sum()));
        return result;
    }

    /** One request on a new connection to {@code site}, classified. */
    private void request(int port, String site) {
        try (RawHttp http = new RawHttp(port)) {
            http.socket.setSoTimeout(10_000);
            RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: " + site + "\r\n\r\n").read();
            if (r == null) {
                count(site, "closed without an answer");
            } else if (r.header("content-length") != null
                    && r.body().length() < Integer.parseInt(r.header("content-length"))) {
                count(site, r.status() + " cut short");
            } else {
                count(site, String.valueOf(r.status()));
            }
        } catch (Exception e) {
            count(site, MisbehavingBackends.isConnectionEnd(e) ? "connection ended mid-answer" : e.toString());
        }
    }

    /** {@code CLIENTS_PER_SITE} clients per site, each sending requests one after another for {@code millis}. */
    private void load(int port, List<String> sites, long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        List<Thread> clients = new ArrayList<>();
        for (String site : sites) {
            for (int i = 0; i < CLIENTS_PER_SITE; i++) {
                clients.add(Thread.ofVirtual().start(() -> {
                    while (System.nanoTime() < end) {
                        request(port, site);
                    }
                }));
            }
        }
        for (Thread t : clients) {
            t.join();
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** The descriptors once they settle (Usher closes idle pooled connections to dead backends lazily). */
    private static long settledDescriptors(long atMost) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long now = MisbehavingBackends.openDescriptors();
        while (now > atMost && System.nanoTime() < deadline) {
            Thread.sleep(100);
            now = MisbehavingBackends.openDescriptors();
        }
        return now;
    }

    @Test
    void onlyTheBrokenBackendsRequestsFailAndNothingLeaks() throws Exception {
        try (Whoami good = Whoami.start("127.0.0.1", 0, "good");
             MisbehavingBackends.Silent silent = new MisbehavingBackends.Silent();
             MisbehavingBackends.HalfThenReset half = new MisbehavingBackends.HalfThenReset();
             MisbehavingBackends.Flapping flapping = new MisbehavingBackends.Flapping();
             RunningUsher usher = RunningUsher.start("""
                     sites:
                       good.test: 127.0.0.1:%d
                       silent.test: {to: "127.0.0.1:%d", timeouts: {response: 500ms}}
                       half.test: 127.0.0.1:%d
                       flapping.test: {to: "127.0.0.1:%d", timeouts: {connect: 1s, response: 2s}}
                     """.formatted(good.port(), silent.port(), half.port(), flapping.port()))) {
            List<String> sites = List.of("good.test", "silent.test", "half.test", "flapping.test");
            load(usher.port(), sites, 1_500); // warm-up: pools, classes, buffers
            Thread.sleep(500);
            long fdsBefore = MisbehavingBackends.openDescriptors();
            outcomes.clear();

            load(usher.port(), sites, 5_000);

            Map<String, Long> goodOutcomes = outcomes("good.test");
            assertThat(goodOutcomes).as("the healthy site, next to the broken ones").containsOnlyKeys("200");
            assertThat(goodOutcomes.get("200")).isGreaterThan(100);
            assertThat(outcomes("silent.test")).as("accepts, never answers").containsOnlyKeys("504");
            assertThat(outcomes("half.test")).as("half an answer, then a reset").isNotEmpty()
                    .allSatisfy((outcome, n) -> assertThat(outcome)
                            .isIn("200 cut short", "connection ended mid-answer"));
            Map<String, Long> flappingOutcomes = outcomes("flapping.test");
            assertThat(flappingOutcomes).as("up a second, down a second").containsKeys("200", "502");
            assertThat(flappingOutcomes.keySet()).isSubsetOf("200", "502");

            long fdsAfter = settledDescriptors(fdsBefore + 8);
            assertThat(fdsAfter).as("open descriptors after the load (before: %d)", fdsBefore)
                    .isLessThanOrEqualTo(fdsBefore + 8);
            // The heap is shared with the whole suite, so one-off growth (caches, arenas, other tests'
            // leftovers) says nothing; a leak grows again with a second round of the same load.
            long heapAfterFirstRound = heapAfterGc();
            load(usher.port(), sites, 5_000);
            long heapAfterSecondRound = heapAfterGc();
            assertThat(heapAfterSecondRound)
                    .as("heap after a second round of the load, after GC (after the first: %d)", heapAfterFirstRound)
                    .isLessThan(heapAfterFirstRound + 16L * 1024 * 1024);
        }
    }
}
