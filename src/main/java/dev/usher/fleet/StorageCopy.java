package dev.usher.fleet;

import dev.usher.cert.CertStore;
import dev.usher.cert.CertifiedKey;
import dev.usher.config.StorageSetting;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code usher storage copy}: moves certificates between a data directory and the fleet's Redis, so a node that ran
 * alone joins a fleet (or leaves it) without a single new order. A certificate is copied only where the other side
 * has none or an older one, so copying twice, or while the fleet runs, never goes backwards. The ACME account key
 * goes up with the certificates unless the fleet has one already.
 */
public final class StorageCopy implements AutoCloseable {
    /** What one copy did. */
    public record Result(int copied, int kept, int accounts) {
    }

    private final RedisLink redis;
    private final RedisStorage storage;
    private final CertStore local;
    private final ScheduledExecutorService timer;

    public StorageCopy(StorageSetting setting, Path dataDir) {
        this.redis = new RedisLink(setting);
        this.local = new CertStore(dataDir);
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().factory());
        this.storage = new RedisStorage(redis, local, new Sealing(setting.encryptionKey()), setting.node(),
                setting.lease(), timer);
    }

    /** Where Redis is, for messages. */
    public String where() {
        return redis.where();
    }

    /** Copies the data directory's certificates (and account keys) to Redis. */
    public Result toRedis() throws IOException {
        int accounts = storage.shareLocalAccounts();
        int copied = 0;
        int kept = 0;
        for (String issuerId : storage.localIssuers()) {
            for (String name : local.names(issuerId)) {
                Optional<CertifiedKey> cert = local.load(issuerId, name);
                if (cert.isPresent() && storage.push(issuerId, name, cert.get(), storage.freshFence(), true)) {
                    copied++;
                } else {
                    kept++;
                }
            }
        }
        return new Result(copied, kept, accounts);
    }

    /** Copies Redis's certificates to the data directory. */
    public Result toData() throws IOException {
        int copied = 0;
        int kept = 0;
        for (String key : storage.scan(FleetKeys.CERT_PREFIX + "*")) {
            String rest = key.substring(FleetKeys.CERT_PREFIX.length());
            int colon = rest.indexOf(':');
            String issuerId = rest.substring(0, colon);
            String name = rest.substring(colon + 1);
            Optional<CertifiedKey> shared = storage.fetch(issuerId, name);
            Optional<CertifiedKey> mine = local.load(issuerId, name);
            if (shared.isPresent() && (mine.isEmpty() || shared.get().notAfter().isAfter(mine.get().notAfter()))) {
                local.save(issuerId, name, shared.get());
                copied++;
            } else {
                kept++;
            }
        }
        return new Result(copied, kept, 0);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        redis.close();
    }
}
