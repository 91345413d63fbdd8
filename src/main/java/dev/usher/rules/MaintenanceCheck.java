package dev.usher.rules;

import dev.usher.config.Maintenance;

import java.nio.file.Files;
import java.util.function.LongSupplier;

/**
 * Whether a site is in maintenance now: always, or while its flag file exists. The file is looked at no more than
 * once a second (a deploy script's {@code touch} shows within that), not on every request.
 *
 * <p>Threading: called on every event loop; the cached answer is two volatile fields, and two loops looking at the
 * file at the same moment do no harm.
 */
final class MaintenanceCheck {
    private static final long RECHECK_NANOS = 1_000_000_000L;

    private final Maintenance settings;
    private final IpNetworks allow;
    private final LongSupplier nanoTime;
    private volatile boolean flagged;
    private volatile long checkedAt;

    MaintenanceCheck(Maintenance settings, LongSupplier nanoTime) {
        this.settings = settings;
        this.allow = settings.allow().isEmpty() ? null : new IpNetworks(settings.allow());
        this.nanoTime = nanoTime;
        this.checkedAt = nanoTime.getAsLong() - 2 * RECHECK_NANOS;
    }

    Maintenance settings() {
        return settings;
    }

    /** True when a client at this address gets the maintenance page now. */
    boolean applies(boolean v6, long hi, long lo) {
        if (!on()) {
            return false;
        }
        return allow == null || !allow.contains(v6, hi, lo);
    }

    private boolean on() {
        if (settings.flagFile() == null) {
            return true;
        }
        long now = nanoTime.getAsLong();
        if (now - checkedAt >= RECHECK_NANOS) {
            flagged = Files.exists(settings.flagFile());
            checkedAt = now;
        }
        return flagged;
    }

    /** Whole seconds for Retry-After. */
    long retryAfterSeconds() {
        return Math.max(1, settings.retryAfter().toSeconds());
    }
}
