package dev.usher.docker;

import dev.usher.config.DiscoveredContainer;
import dev.usher.json.JsonReader;
import dev.usher.net.Backoff;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Follows the containers of a Docker (or podman) daemon through its Engine API and says when the routable ones
 * change. It negotiates the API version ({@link ApiVersion}), follows {@code /events}, and re-lists the running
 * containers after each event that matters ({@link DockerEvents}), a burst of them making one re-list, and after
 * every (re)connect. A lost socket is retried with backoff ({@link Backoff}); meanwhile nothing is reported, so the
 * last known containers keep being served. Only GET requests are made.
 *
 * <p>Threads: one daemon thread follows the event stream (and waits out the backoff); one more re-lists, one list at
 * a time, and calls the listener. Nothing runs on an event loop; nothing exists unless {@code docker:} is set.
 */
public final class DockerWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DockerWatcher.class.getName());
    /** Events come in bursts (a compose up starts many containers, each with several events): wait for quiet. */
    static final Duration DEBOUNCE = Duration.ofMillis(150);
    /** However long a burst lasts, a re-list happens this long after its first event at the latest. */
    static final Duration MOST_DELAY = Duration.ofSeconds(1);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** After a failed list while the event stream is up. */
    private static final Duration LIST_RETRY = Duration.ofSeconds(2);

    /** Where the watcher is. */
    public enum State { CONNECTING, WATCHING, RETRYING, CLOSED }

    /** Told the routable containers each time they change; called on the watcher's list thread. */
    @FunctionalInterface
    public interface Listener {
        void changed(List<DiscoveredContainer> containers);
    }

    private final DockerSocket socket;
    private final Listener listener;
    private final Duration firstRetry;
    private final Thread events;
    private final ScheduledThreadPoolExecutor lists;
    /** The first list, or empty when the first attempt to reach the API failed. */
    private final CompletableFuture<Optional<List<DiscoveredContainer>>> first = new CompletableFuture<>();
    private final Object lock = new Object();
    /** Guarded by lock. */
    private State state = State.CONNECTING;
    /** The open event stream, closed by {@link #close}; guarded by lock. */
    private DockerSocket.Stream stream;
    /** The re-list waiting to run, and when the first event it waits for came; guarded by lock. */
    private ScheduledFuture<?> pending;
    private long pendingSince;
    private volatile ApiVersion version;
    /** The list thread's own: the containers last reported, exposed ports by container ID, a failure streak. */
    private List<DiscoveredContainer> last;
    private final Map<String, List<Integer>> exposed = new HashMap<>();
    private boolean listFailing;

    private DockerWatcher(Path socket, Listener listener, Duration firstRetry) {
        this.socket = new DockerSocket(socket);
        this.listener = listener;
        this.firstRetry = firstRetry;
        ScheduledThreadPoolExecutor lists = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "docker-list"));
        lists.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.lists = lists;
        this.events = daemon(this::follow, "docker-events");
    }

    /** Starts following the daemon at {@code socket}; {@code listener} hears of every change. */
    public static DockerWatcher start(Path socket, Listener listener) {
        return start(socket, listener, Backoff.FIRST);
    }

    /** As {@link #start(Path, Listener)}, with the first wait after a failure given (tests shorten it). */
    static DockerWatcher start(Path socket, Listener listener, Duration firstRetry) {
        DockerWatcher watcher = new DockerWatcher(socket, listener, firstRetry);
        watcher.events.start();
        return watcher;
    }

    /** The socket this watcher reads. */
    public Path socket() {
        return socket.path();
    }

    public State state() {
        synchronized (lock) {
            return state;
        }
    }

    /**
     * The first list of routable containers, waiting at most {@code wait}; empty when the API could not be reached
     * at once or did not answer in time (the watcher goes on trying and tells the listener when it can).
     */
    public Optional<List<DiscoveredContainer>> awaitFirst(Duration wait) {
        try {
            return first.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The events thread: connect, re-list, follow the stream; on any failure wait and start again. */
    private void follow() {
        Backoff backoff = new Backoff(firstRetry, Backoff.MOST);
        boolean lost = false;
        while (true) {
            try {
                ApiVersion negotiated = negotiate();
                DockerSocket.Stream opened = socket.stream(negotiated.prefix() + DockerEvents.FILTER,
                        REQUEST_TIMEOUT);
                synchronized (lock) {
                    if (state == State.CLOSED) {
                        opened.close();
                        return;
                    }
                    stream = opened;
                    state = State.WATCHING;
                }
                version = negotiated;
                LOG.log(Level.INFO, "{0} containers through the Docker API at {1} (API {2})",
                        lost ? "reached again: watching" : "watching", socket.path(), negotiated);
                lost = false;
                backoff.reset();
                relist(Duration.ZERO);
                for (String line = opened.nextLine(); line != null; line = opened.nextLine()) {
                    if (!line.isBlank() && DockerEvents.matters(parse(line))) {
                        relist(DEBOUNCE);
                    }
                }
                throw new IOException("the event stream ended");
            } catch (IOException | RuntimeException e) {
                synchronized (lock) {
                    if (state == State.CLOSED) {
                        return;
                    }
                    state = State.RETRYING;
                    stream = null;
                }
                if (!lost) {
                    LOG.log(Level.WARNING, "{0} the Docker API at {1} ({2}); retrying with backoff, the label sites "
                            + "known so far keep serving", version == null ? "cannot reach" : "lost", socket.path(),
                            describe(e));
                }
                lost = true;
                first.complete(Optional.empty());
            }
            try {
                Thread.sleep(backoff.next());
            } catch (InterruptedException e) {
                return; // closed
            }
        }
    }

    private ApiVersion negotiate() throws IOException {
        DockerSocket.Response answer = socket.get("/version", REQUEST_TIMEOUT);
        if (answer.status() != 200) {
            throw new DockerSocket.ApiException("/version", answer);
        }
        try {
            if (JsonReader.parse(answer.text()) instanceof Map<?, ?> map) {
                return ApiVersion.negotiate(map);
            }
        } catch (JsonReader.BadJson | IllegalArgumentException e) {
            throw new IOException("cannot read the /version answer: " + e.getMessage(), e);
        }
        throw new IOException("the /version answer is not a JSON object");
    }

    private static Object parse(String line) {
        try {
            return JsonReader.parse(line);
        } catch (JsonReader.BadJson e) {
            LOG.log(Level.DEBUG, "an event that is not JSON: " + e.getMessage());
            return null;
        }
    }

    /**
     * Asks for a re-list in {@code delay}. A re-list already waiting is pushed back to wait for quiet, but never
     * past {@link #MOST_DELAY} after the first event it waits for; one that is running is followed by another.
     */
    private void relist(Duration delay) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            long now = System.nanoTime();
            if (pending != null) {
                long latest = pendingSince + MOST_DELAY.toNanos();
                long wanted = Math.min(now + delay.toNanos(), latest);
                pending.cancel(false);
                pending = lists.schedule(this::list, Math.max(0, wanted - now), TimeUnit.NANOSECONDS);
            } else {
                pendingSince = now;
                pending = lists.schedule(this::list, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
    }

    /** The list thread: the routable containers now; the listener hears of them when they differ from the last. */
    private void list() {
        synchronized (lock) {
            pending = null; // an event from now on asks for another list
            if (state == State.CLOSED) {
                return;
            }
        }
        ApiVersion v = version;
        try {
            DockerSocket.Response answer = socket.get(v.prefix() + "/containers/json", REQUEST_TIMEOUT);
            if (answer.status() != 200) {
                throw new DockerSocket.ApiException("/containers/json", answer);
            }
            List<DiscoveredContainer> now = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (ContainerList.Listed c : ContainerList.parse(JsonReader.parse(answer.text()))) {
                seen.add(c.id());
                if (!c.ready()) {
                    LOG.log(Level.DEBUG, "container {0} is not healthy yet: not routed", c.name());
                    continue;
                }
                Optional<List<Integer>> ports = exposedPorts(v, c.id());
                ports.ifPresent(p -> now.add(new DiscoveredContainer(c.id(), c.name(), c.labels(), c.networks(), p)));
            }
            exposed.keySet().retainAll(seen);
            now.sort(Comparator.comparing(DiscoveredContainer::name).thenComparing(DiscoveredContainer::id));
            if (listFailing) {
                LOG.log(Level.INFO, "listing containers through {0} works again", socket.path());
                listFailing = false;
            }
            first.complete(Optional.of(List.copyOf(now)));
            if (!now.equals(last)) {
                last = List.copyOf(now);
                tell(last);
            }
        } catch (IOException | JsonReader.BadJson | RuntimeException e) {
            if (!listFailing) {
                LOG.log(Level.WARNING, "listing containers through {0} failed ({1}); trying again", socket.path(),
                        describe(e));
            }
            listFailing = true;
            if (state() == State.WATCHING) {
                relist(LIST_RETRY); // while the stream is down, the reconnect lists again anyway
            }
        }
    }

    /** A container's exposed ports, inspected once per container; empty when it went away meanwhile. */
    private Optional<List<Integer>> exposedPorts(ApiVersion v, String id) throws IOException, JsonReader.BadJson {
        List<Integer> known = exposed.get(id);
        if (known != null) {
            return Optional.of(known);
        }
        DockerSocket.Response answer = socket.get(v.prefix() + "/containers/" + id + "/json", REQUEST_TIMEOUT);
        if (answer.status() == 404) {
            return Optional.empty();
        }
        if (answer.status() != 200) {
            throw new DockerSocket.ApiException("/containers/" + id + "/json", answer);
        }
        List<Integer> ports = ContainerList.exposedPorts(JsonReader.parse(answer.text()));
        exposed.put(id, ports);
        return Optional.of(ports);
    }

    private void tell(List<DiscoveredContainer> containers) {
        if (state() == State.CLOSED) {
            return;
        }
        try {
            listener.changed(containers);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "applying the containers' label sites failed", e);
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Stops following: closes the event stream, ends both threads; the listener is not called again. */
    @Override
    public void close() {
        DockerSocket.Stream open;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            open = stream;
            stream = null;
            if (pending != null) {
                pending.cancel(false);
            }
        }
        if (open != null) {
            open.close();
        }
        events.interrupt();
        lists.shutdownNow();
        first.complete(Optional.empty());
    }
}
