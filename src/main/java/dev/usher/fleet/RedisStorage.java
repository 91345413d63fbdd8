package dev.usher.fleet;

import dev.usher.cert.CertStorage;
import dev.usher.cert.CertStore;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.LocalCa;
import dev.usher.cert.Pem;
import dev.usher.cert.StorageUnavailableException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Certificates, keys and ACME account keys in the fleet's Redis, with the data directory as every node's local
 * copy: each certificate stored or found in Redis is also written there (atomically, as always), so a node whose
 * Redis is unreachable goes on serving, and starts serving at once. Private keys are sealed ({@link Sealing}).
 *
 * <p>While Redis is unreachable, loads answer from the local copy, saves go to the local copy only, and
 * {@link #tryLock} throws (no order alone); when it is back, {@link #resync} sends up what is newer here, and the
 * certificate manager is told to look at what is newer there. Certificates of the local CA stay local: each node
 * has its own CA.
 */
final class RedisStorage implements CertStorage {
    private static final System.Logger LOG = System.getLogger(RedisStorage.class.getName());
    /**
     * Stores a certificate. A lock holder's save (ARGV[3] = 0) is refused when a later lock holder (a larger fencing
     * token) stored one; a save without the lock (ARGV[3] = 1: a local copy sent up after an outage) only when what
     * is there expires as late or later, and it keeps the stored token: otherwise an older copy sent up just before
     * the lock holder's save would, with its fresh token, refuse the lock holder's newer certificate.
     */
    static final String STORE = """
            local storedFence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
            local storedNotAfter = tonumber(redis.call('HGET', KEYS[1], 'not_after') or '0')
            local fence = ARGV[1]
            if ARGV[3] == '1' then
              if tonumber(ARGV[2]) <= storedNotAfter then return 0 end
              fence = tostring(storedFence)
            elseif tonumber(ARGV[1]) < storedFence then
              return 0
            end
            redis.call('HSET', KEYS[1], 'fence', fence, 'not_after', ARGV[2], 'chain', ARGV[4], 'key', ARGV[5],
              'sha256', ARGV[6], 'node', ARGV[7], 'saved_at', ARGV[8])
            return 1""";
    private static final Duration ACCOUNT_WAIT = Duration.ofSeconds(30);

    private final RedisLink redis;
    private final CertStore local;
    private final Sealing sealing;
    private final String node;
    private final Duration lease;
    private final ScheduledExecutorService timer;
    /** The leases this node holds, by certificate key: a save under one carries its fencing token. */
    private final Map<String, Lease> held = new ConcurrentHashMap<>();
    private final List<BiConsumer<String, String>> watchers = new CopyOnWriteArrayList<>();

    RedisStorage(RedisLink redis, CertStore local, Sealing sealing, String node, Duration lease,
                 ScheduledExecutorService timer) {
        this.redis = redis;
        this.local = local;
        this.sealing = sealing;
        this.node = node;
        this.lease = lease;
        this.timer = timer;
    }

    @Override
    public Optional<CertifiedKey> load(String issuerId, String name) {
        Optional<CertifiedKey> mine = local.load(issuerId, name);
        if (LocalCa.ID.equals(issuerId)) {
            return mine;
        }
        Optional<CertifiedKey> shared;
        try {
            shared = fetch(issuerId, name);
        } catch (StorageUnavailableException e) {
            return mine;
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: cannot use the certificate in {1}: {2}; using the local copy", name,
                    redis.where(), e.getMessage());
            return mine;
        }
        if (shared.isPresent() && (mine.isEmpty() || newer(shared.get(), mine.get()))) {
            keepLocally(issuerId, name, shared.get());
            return shared;
        }
        if (mine.isPresent() && (shared.isEmpty() || newer(mine.get(), shared.get()))) {
            pushQuietly(issuerId, name, mine.get()); // stored here while Redis was away, or Redis lost it
        }
        return mine.isPresent() ? mine : shared;
    }

    @Override
    public void save(String issuerId, String name, CertifiedKey cert) throws IOException {
        local.save(issuerId, name, cert);
        if (LocalCa.ID.equals(issuerId)) {
            return;
        }
        Lease lock = held.get(FleetKeys.cert(issuerId, name));
        try {
            if (!push(issuerId, name, cert, lock == null ? freshFence() : lock.fence(), lock == null)) {
                LOG.log(Level.WARNING, "{0}: {1} kept the newer certificate another node stored there (this node''s "
                        + "lock had run out); this one stays in the local copy", name, redis.where());
            }
        } catch (StorageUnavailableException e) {
            LOG.log(Level.INFO, "{0}: stored in the local copy; it goes to {1} when that is reachable again", name,
                    redis.where());
        }
    }

    @Override
    public void delete(String issuerId, String name) throws IOException {
        local.delete(issuerId, name);
        if (!LocalCa.ID.equals(issuerId)) {
            redis.call(j -> j.del(FleetKeys.cert(issuerId, name)));
            announce("cert " + issuerId + " " + name);
        }
    }

    @Override
    public List<String> names(String issuerId) throws IOException {
        if (LocalCa.ID.equals(issuerId)) {
            return local.names(issuerId);
        }
        TreeSet<String> names = new TreeSet<>();
        String prefix = FleetKeys.cert(issuerId, "");
        for (String key : scan(prefix + "*")) {
            names.add(key.substring(prefix.length()));
        }
        return List.copyOf(names);
    }

    @Override
    public Optional<? extends OrderLock> tryLock(String issuerId, String name) throws IOException {
        if (LocalCa.ID.equals(issuerId)) {
            return local.tryLock(issuerId, name);
        }
        refuseWhileSettling();
        String certKey = FleetKeys.cert(issuerId, name);
        Optional<Lease> taken = Lease.tryTake(redis, FleetKeys.lock(issuerId, name), node, lease, FleetKeys.FENCE,
                timer, () -> held.remove(certKey));
        if (taken.isPresent()) {
            try {
                // Again: when the link still thought Redis down, taking the lease was the call that found it back
                refuseWhileSettling();
            } catch (StorageUnavailableException e) {
                taken.get().close();
                throw e;
            }
        }
        taken.ifPresent(l -> held.put(certKey, l));
        return taken;
    }

    private void refuseWhileSettling() throws StorageUnavailableException {
        Duration settling = redis.untilSettled();
        if (!settling.isZero()) {
            throw new StorageUnavailableException(redis.where() + " is reachable again since moments ago; orders wait "
                    + (settling.toMillis() + 999) / 1000 + " s more for every node to reconnect (one that has not "
                    + "could not answer the CA)", null);
        }
    }

    @Override
    public KeyPair accountKey(String issuerId) throws IOException {
        String key = FleetKeys.account(issuerId);
        String sealed = redis.call(j -> j.get(key));
        if (sealed == null) {
            sealed = createAccountKey(issuerId, key);
        }
        try {
            return Pem.readKeyPair(sealing.open(sealed, key), redis.where() + " " + key);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot open the account key in " + redis.where() + " (" + key + "): " + e
                    + "; do all nodes have the same encryption_key_file?", e);
        }
    }

    /** Puts an account key in Redis once for the whole fleet: this node's local one if it has one, else a new one. */
    private String createAccountKey(String issuerId, String key) throws IOException {
        String lockKey = FleetKeys.accountLock(issuerId);
        String token = node + "/" + System.nanoTime();
        long deadline = System.nanoTime() + ACCOUNT_WAIT.toNanos();
        while (!"OK".equals(redis.call(j -> j.set(lockKey, token, SetParams.setParams().nx()
                .px(ACCOUNT_WAIT.toMillis()))))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("another node has been making the account key in " + redis.where() + " for "
                        + ACCOUNT_WAIT.toSeconds() + "s");
            }
            sleep(100);
        }
        try {
            String there = redis.call(j -> j.get(key));
            if (there != null) {
                return there;
            }
            KeyPair pair = local.accountKey(issuerId); // a node joining with an account of its own brings it
            String sealed = sealAccount(pair, key);
            redis.call(j -> j.set(key, sealed));
            LOG.log(Level.INFO, "the ACME account key for {0} is now shared in {1}", issuerId, redis.where());
            return sealed;
        } finally {
            redis.call(j -> j.eval(Lease.RELEASE, List.of(lockKey), List.of(token)));
        }
    }

    @Override
    public CertStore local() {
        return local;
    }

    @Override
    public String where() {
        return redis.where();
    }

    @Override
    public void watch(BiConsumer<String, String> changed) {
        watchers.add(changed);
    }

    @Override
    public boolean shared() {
        return true;
    }

    /** Another node stored or deleted the certificate of {@code name}. */
    void changed(String issuerId, String name) {
        watchers.forEach(w -> w.accept(issuerId, name));
    }

    /**
     * After Redis was unreachable (or at the first contact): sends up every local certificate newer than the one in
     * Redis (stored here meanwhile, or lost there), then tells the watchers to look at everything.
     */
    void resync() {
        try {
            shareLocalAccounts();
            for (String issuerId : localIssuers()) {
                for (String name : local.names(issuerId)) {
                    local.load(issuerId, name).ifPresent(cert -> pushQuietly(issuerId, name, cert));
                }
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not compare the local copy with {0}: {1}", redis.where(), e.toString());
        }
        try {
            Thread.sleep(redis.untilSettled().toMillis()); // until tryLock takes locks again, for the names that waited
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        watchers.forEach(w -> w.accept(null, null));
    }

    /** Puts each local account key in Redis where the fleet has none for its CA; gives how many went up. */
    int shareLocalAccounts() throws IOException {
        int shared = 0;
        for (String issuerId : localAccounts()) {
            KeyPair pair = local.accountKey(issuerId);
            String key = FleetKeys.account(issuerId);
            String sealed = sealAccount(pair, key);
            if ("OK".equals(redis.call(j -> j.set(key, sealed, SetParams.setParams().nx())))) {
                LOG.log(Level.INFO, "the ACME account key for {0} is now shared in {1}", issuerId, redis.where());
                shared++;
            }
        }
        return shared;
    }

    private String sealAccount(KeyPair pair, String key) {
        return sealing.seal(Pem.privateKey(pair.getPrivate()) + Pem.publicKey(pair.getPublic()), key);
    }

    /** The certificate in Redis, or empty when there is none. */
    Optional<CertifiedKey> fetch(String issuerId, String name) throws IOException {
        String key = FleetKeys.cert(issuerId, name);
        Map<String, String> stored = redis.call(j -> j.hgetAll(key));
        if (stored.isEmpty() || stored.get("chain") == null || stored.get("key") == null) {
            return Optional.empty();
        }
        try {
            String keyPem = sealing.open(stored.get("key"), key);
            return Optional.of(Pem.readCertifiedKey(stored.get("chain"), redis.where() + " " + key, keyPem,
                    redis.where() + " " + key));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot open the key of " + key + ": " + e + "; do all nodes have the same "
                    + "encryption_key_file?", e);
        }
    }

    /**
     * Stores {@code cert} in Redis under {@code fence} (refused when a larger one stored there; with
     * {@code onlyIfNewer}, also when what is there expires as late or later) and tells the other nodes.
     */
    boolean push(String issuerId, String name, CertifiedKey cert, long fence, boolean onlyIfNewer)
            throws IOException {
        String key = FleetKeys.cert(issuerId, name);
        String sealed = sealing.seal(Pem.privateKey(cert.key()), key);
        Object stored = redis.call(j -> j.eval(STORE, List.of(key), List.of(Long.toString(fence),
                Long.toString(cert.notAfter().toEpochMilli()), onlyIfNewer ? "1" : "0",
                Pem.certificates(cert.chain()), sealed, cert.sha256(), node, Instant.now().toString())));
        boolean done = Long.valueOf(1).equals(stored);
        if (done) {
            announce("cert " + issuerId + " " + name);
        }
        return done;
    }

    long freshFence() throws IOException {
        return redis.call(j -> j.incr(FleetKeys.FENCE));
    }

    private void pushQuietly(String issuerId, String name, CertifiedKey cert) {
        try {
            if (push(issuerId, name, cert, freshFence(), true)) {
                LOG.log(Level.INFO, "{0}: the local copy (valid until {1}) is now in {2}", name, cert.notAfter(),
                        redis.where());
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: could not send the local copy to {1}: {2}", name, redis.where(), e.toString());
        }
    }

    private void keepLocally(String issuerId, String name, CertifiedKey cert) {
        try {
            local.save(issuerId, name, cert);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: could not keep a local copy in {1}: {2}", name, local.dataDir(),
                    e.toString());
        }
    }

    private void announce(String event) {
        try {
            redis.call(j -> j.publish(FleetKeys.CHANNEL, node + " " + event));
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "could not announce {0}: {1}", event, e.toString());
        }
    }

    /** Every key matching {@code pattern}. */
    List<String> scan(String pattern) throws IOException {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        ScanParams params = new ScanParams().match(pattern).count(500);
        do {
            String from = cursor;
            ScanResult<String> page = redis.call(j -> j.scan(from, params));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
        return keys;
    }

    /** The issuers with certificates in the local copy (not the local CA's). */
    List<String> localIssuers() throws IOException {
        return folders(local.dataDir().resolve("certificates"), id -> true);
    }

    /** The issuers with an account key in the local copy. */
    private List<String> localAccounts() throws IOException {
        Path accounts = local.dataDir().resolve("accounts");
        return folders(accounts, id -> Files.isRegularFile(accounts.resolve(id).resolve("account.key")));
    }

    private static List<String> folders(Path dir, java.util.function.Predicate<String> wanted) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> issuers = Files.list(dir)) {
            return issuers.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(id -> !LocalCa.ID.equals(id) && wanted.test(id)).sorted().toList();
        }
    }

    private static boolean newer(CertifiedKey a, CertifiedKey b) {
        return a.notAfter().isAfter(b.notAfter());
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
