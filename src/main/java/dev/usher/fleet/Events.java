package dev.usher.fleet;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The fleet's events channel, followed on a thread of its own: "a certificate was stored", "a challenge answer was
 * published or withdrawn", each from the node that did it (this node's own are skipped). The subscription is made
 * again after Redis was lost, with the link's backoff; each time it is made, everything is looked at again
 * ({@code onSubscribed}), since notes sent meanwhile were missed.
 */
final class Events implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Events.class.getName());

    private final RedisLink redis;
    private final String node;
    private final RedisStorage storage;
    private final ChallengeRelay challenges;
    private final Thread thread;
    /** Down once the first subscription caught up with the answers in progress, or failed. */
    private final CountDownLatch firstAttempt = new CountDownLatch(1);
    private volatile boolean closed;
    private volatile JedisPubSub subscription;

    Events(RedisLink redis, String node, RedisStorage storage, ChallengeRelay challenges) {
        this.redis = redis;
        this.node = node;
        this.storage = storage;
        this.challenges = challenges;
        this.thread = Thread.ofPlatform().daemon().name("usher-fleet-events").unstarted(this::follow);
    }

    void start() {
        thread.start();
    }

    /**
     * Waits (up to {@code limit}) until the first subscription holds the challenge answers in progress, or failed:
     * a node that accepts connections before then would fail a CA's validation of another node's order.
     */
    void awaitFirstAttempt(Duration limit) {
        try {
            if (!firstAttempt.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.INFO, "{0} has not answered the events subscription within {1} s; accepting "
                        + "connections all the same", redis.where(), limit.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void follow() {
        while (!closed) {
            try {
                JedisPubSub listener = new Listener();
                subscription = listener;
                redis.client().subscribe(listener, FleetKeys.CHANNEL);
            } catch (JedisException e) {
                if (!closed) {
                    redis.unreachable(e);
                }
            } catch (java.io.IOException e) {
                // unreachable and backing off: wait below
            }
            firstAttempt.countDown();
            pause(redis.untilNextAttempt());
        }
    }

    private void pause(Duration wait) {
        try {
            Thread.sleep(Math.max(100, wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /** A note on the channel: {@code NODE TYPE ARGS...}. */
    void handle(String message) {
        String[] parts = message.split(" ");
        if (parts.length < 3 || parts[0].equals(node)) {
            return;
        }
        switch (parts[1]) {
            case "cert" -> {
                if (parts.length == 4) {
                    storage.changed(parts[2], parts[3]);
                }
            }
            case FleetKeys.HTTP01, FleetKeys.TLS_ALPN01 -> challenges.changed(parts[1], parts[2]);
            default -> LOG.log(Level.DEBUG, "unknown fleet event: {0}", message);
        }
    }

    private final class Listener extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            Thread.ofVirtual().name("usher-fleet-catch-up").start(() -> {
                challenges.loadAll(storage);
                firstAttempt.countDown();
            });
            redis.reachable();
        }

        @Override
        public void onMessage(String channel, String message) {
            try {
                handle(message);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not act on the fleet event \"" + message + "\"", e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        JedisPubSub listening = subscription;
        try {
            if (listening != null && listening.isSubscribed()) {
                listening.unsubscribe();
            }
        } catch (RuntimeException e) {
            // the connection is gone already
        }
        thread.interrupt();
    }
}
