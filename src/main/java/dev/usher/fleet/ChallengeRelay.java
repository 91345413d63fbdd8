package dev.usher.fleet;

import dev.usher.cert.CertifiedKey;
import dev.usher.cert.ChallengeAnswers;
import dev.usher.cert.Pem;
import dev.usher.cert.StorageUnavailableException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import redis.clients.jedis.params.SetParams;

/**
 * Challenge answers shared by the fleet: what this node publishes for an order goes to Redis (and a note on the
 * events channel) before the CA is told to validate, and what other nodes publish arrives here into this node's
 * {@link ChallengeAnswers}, so whichever node the CA's request reaches answers it. A publication returns once every
 * other node with a heartbeat, and at least as many as follow the events channel, confirmed it holds the answer (or
 * after {@link #CONFIRM_WAIT}): the CA validates the moment it is told to. The channel's subscribers alone are not
 * enough: a node that has not yet subscribed again after an outage would not be waited for, and the CA's validation
 * of another node's order could reach it. TLS-ALPN-01 certificates carry a private key and are sealed. Entries
 * expire on their own after {@link #LIFETIME}, in case their node dies.
 */
final class ChallengeRelay implements ChallengeAnswers.Relay {
    private static final System.Logger LOG = System.getLogger(ChallengeRelay.class.getName());
    /** Longer than a CA takes to validate (Usher gives up on a challenge after three minutes). */
    static final Duration LIFETIME = Duration.ofMinutes(10);
    /**
     * How long a publication waits for the other nodes to confirm. They answer in milliseconds; one that has just got
     * Redis back subscribes again within the link's longest backoff. Only a node that died within its heartbeat's
     * lifetime makes a publication wait this long.
     */
    static final Duration CONFIRM_WAIT = RedisLink.SETTLE;
    /** How long a new answer waits for an unreachable Redis before only this node can answer it. */
    static final Duration SHARE_WAIT = Duration.ofSeconds(30);

    private final RedisLink redis;
    private final Sealing sealing;
    private final String node;
    private final ChallengeAnswers answers;
    private final Heartbeat heartbeat;

    ChallengeRelay(RedisLink redis, Sealing sealing, String node, ChallengeAnswers answers, Heartbeat heartbeat) {
        this.redis = redis;
        this.sealing = sealing;
        this.node = node;
        this.answers = answers;
        this.heartbeat = heartbeat;
    }

    @Override
    public void http01(String token, String keyAuthorization) {
        put(FleetKeys.HTTP01, token, keyAuthorization);
    }

    @Override
    public void tlsAlpn01(String name, CertifiedKey challengeCertificate) {
        String key = FleetKeys.challenge(FleetKeys.TLS_ALPN01, name);
        put(FleetKeys.TLS_ALPN01, name, challengeCertificate == null ? null : sealing.seal(
                Pem.certificates(challengeCertificate.chain()) + Pem.privateKey(challengeCertificate.key()), key));
    }

    /**
     * Shares an answer (null: withdraws it). While Redis is unreachable a new answer waits for it, up to
     * {@link #SHARE_WAIT} (a Sentinel failover takes seconds): the CA is told to validate only after this returns,
     * and a node that cannot answer would fail the order.
     */
    private void put(String type, String id, String value) {
        String key = FleetKeys.challenge(type, id);
        long deadline = System.nanoTime() + (value == null ? 0 : SHARE_WAIT.toNanos());
        while (true) {
            try {
                redis.call(j -> value == null ? j.del(key)
                        : j.set(key, value, SetParams.setParams().px(LIFETIME.toMillis())));
                long receivers = redis.call(j -> j.publish(FleetKeys.CHANNEL, node + " " + type + " " + id));
                if (value != null) {
                    awaitConfirmations(type, id, receivers - 1); // this node follows the channel too
                }
                return;
            } catch (StorageUnavailableException e) {
                if (value == null) {
                    LOG.log(Level.DEBUG, "could not withdraw {0} (it expires by itself): {1}", key, e.toString());
                    return;
                }
                if (System.nanoTime() - deadline > 0 || !pause(redis.untilNextAttempt())) {
                    unshared(type, id, e);
                    return;
                }
            } catch (IOException e) {
                unshared(type, id, e);
                return;
            }
        }
    }

    private void unshared(String type, String id, IOException e) {
        LOG.log(Level.WARNING, "could not share the {0} challenge answer {1} through {2}: {3}; only this node can "
                + "answer it", type, id, redis.where(), e.getMessage());
    }

    private static boolean pause(Duration wait) {
        try {
            Thread.sleep(Math.max(100, wait.toMillis()));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits until every other node with a heartbeat, and at least {@code subscribers} nodes, hold the answer. */
    private void awaitConfirmations(String type, String id, long subscribers) throws IOException {
        Set<String> others = new TreeSet<>(heartbeat.names());
        others.remove(node);
        String key = FleetKeys.confirmations(type, id);
        long deadline = System.nanoTime() + CONFIRM_WAIT.toNanos();
        while (true) {
            Set<String> stored = redis.call(j -> j.smembers(key));
            Set<String> confirmed = new TreeSet<>(stored);
            confirmed.remove(node); // its own catch-up after a reconnect may list this node too
            if (confirmed.containsAll(others) && confirmed.size() >= subscribers) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                Set<String> missing = new TreeSet<>(others);
                missing.removeAll(confirmed);
                LOG.log(Level.INFO, "{0}: not confirmed within {1} s by {2} (heartbeats) or {3} of {4} other "
                        + "subscribers; the CA may reach a node without the answer", key, CONFIRM_WAIT.toSeconds(),
                        missing.isEmpty() ? "no node" : String.join(", ", missing), confirmed.size(), subscribers);
                return;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Holds {@code value} (null: the answer was withdrawn) and tells the publishing node, which may be waiting. */
    private void take(String type, String id, String key, String value) throws IOException {
        accept(type, id, key, value);
        if (value != null) {
            confirm(type, id);
        }
    }

    /** Tells the publishing node that this one holds the answer {@code id} of {@code type}. */
    private void confirm(String type, String id) throws IOException {
        String confirmations = FleetKeys.confirmations(type, id);
        redis.call(j -> {
            j.sadd(confirmations, node);
            return j.pexpire(confirmations, LIFETIME.toMillis());
        });
    }

    /** Another node published or withdrew the answer {@code id} of {@code type}: fetch it (or its absence). */
    void changed(String type, String id) {
        String key = FleetKeys.challenge(type, id);
        try {
            take(type, id, key, redis.call(j -> j.get(key)));
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "could not fetch the challenge answer {0}: {1}", key, e.toString());
        }
    }

    /** Fetches every answer in progress: after (re)subscribing, notes sent meanwhile were missed. */
    void loadAll(RedisStorage storage) {
        try {
            List<String> keys = storage.scan(FleetKeys.CHALLENGE_PREFIX + "*");
            for (String key : keys) {
                String rest = key.substring(FleetKeys.CHALLENGE_PREFIX.length());
                int colon = rest.indexOf(':');
                if (colon > 0) {
                    take(rest.substring(0, colon), rest.substring(colon + 1), key, redis.call(j -> j.get(key)));
                }
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "could not fetch the challenge answers in progress: {0}", e.toString());
        }
    }

    private void accept(String type, String id, String key, String value) throws IOException {
        if (FleetKeys.HTTP01.equals(type)) {
            answers.acceptHttp01(id, value);
        } else if (FleetKeys.TLS_ALPN01.equals(type)) {
            if (value == null) {
                answers.acceptTlsAlpn01(id, null);
                return;
            }
            try {
                String pem = sealing.open(value, key);
                answers.acceptTlsAlpn01(id, Pem.readCertifiedKey(pem, key, pem, key));
            } catch (GeneralSecurityException e) {
                throw new IOException("cannot open " + key + ": " + e, e);
            }
        }
    }
}
