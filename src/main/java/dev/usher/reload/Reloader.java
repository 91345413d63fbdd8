package dev.usher.reload;

import dev.usher.config.ConfigError;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Reloads from the config file: load and validate it (the code path of {@code usher check}), and if it is valid
 * hand it to the running server, which compiles, swaps and drains. An invalid file changes nothing; each of its
 * errors is logged as {@code file:line:column: path: message} and returned. Every trigger (file watch, SIGHUP,
 * {@code POST /reload}) comes here.
 *
 * <p>Threads: any. Reloads run one at a time (this object's lock), so triggers that race apply in turn, and the
 * last one reads the newest file.
 */
public final class Reloader {
    private static final System.Logger LOG = System.getLogger(Reloader.class.getName());

    /** What a valid config is handed to: the running server. */
    @FunctionalInterface
    public interface Target {
        /** Puts {@code next} in service, or leaves the current config serving and says why not. */
        ReloadResult reload(UsherConfig next);
    }

    private final Path file;
    private final Target target;
    private final ReloadCounts counts;
    /** SHA-256 of the bytes the last reload read (guarded by this): the watcher skips a file already applied. */
    private byte[] lastRead;

    /**
     * @param file   the config file, read anew on each reload
     * @param target the running server
     * @param counts where each reload's outcome is counted
     */
    public Reloader(Path file, Target target, ReloadCounts counts) {
        this.file = file;
        this.target = target;
        this.counts = counts;
    }

    /** The file this reloader reads. */
    public Path file() {
        return file;
    }

    /**
     * Reads the file and applies it. Logs one line saying what changed (or why nothing did) and how long it took.
     *
     * @param trigger what asked, for the log: {@code file change}, {@code SIGHUP}, {@code admin API}
     */
    public synchronized ReloadResult reload(String trigger) {
        long started = System.nanoTime();
        ReloadResult result;
        try {
            byte[] bytes = Files.readAllBytes(file);
            lastRead = sha256(bytes);
            UsherConfig next = ConfigLoader.parse(bytes, file);
            result = target.reload(next);
        } catch (ConfigException e) {
            result = ReloadResult.failed(e.errors(), since(started));
        } catch (IOException e) {
            String why = e instanceof NoSuchFileException ? "no such file" : String.valueOf(e.getMessage());
            result = ReloadResult.failed(List.of(new ConfigError(file.toString(), 0, 0, "", "cannot read the file: "
                    + why)), since(started));
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "reload of " + file + " failed unexpectedly", e);
            result = ReloadResult.failed(List.of(new ConfigError(file.toString(), 0, 0, "",
                    "reload failed: " + e)), since(started));
        }
        result = new ReloadResult(result.changes(), result.errors(), since(started));
        counts.record(result);
        String millis = String.valueOf(result.took().toMillis());
        if (result.ok()) {
            LOG.log(Level.INFO, "reloaded {0} ({1}): {2}; took {3} ms", file, trigger, result.changes().summary(),
                    millis);
        } else {
            for (ConfigError error : result.errors()) {
                LOG.log(Level.ERROR, error.format());
            }
            LOG.log(Level.ERROR, "not reloaded {0} ({1}): {2} error(s), the previous config keeps serving; took {3} "
                    + "ms", file, trigger, result.errors().size(), millis);
        }
        return result;
    }

    /**
     * Reloads unless the file holds the bytes the last reload read: the file watcher's trigger, since a write by the
     * admin API reloads at once and the watcher then sees the same change. Returns null when skipped.
     */
    public synchronized ReloadResult reloadIfChanged(String trigger) {
        try {
            if (lastRead != null && Arrays.equals(lastRead, sha256(Files.readAllBytes(file)))) {
                return null;
            }
        } catch (IOException e) {
            // unreadable: reload() reports it
        }
        return reload(trigger);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Duration since(long started) {
        return Duration.ofNanos(System.nanoTime() - started);
    }
}
