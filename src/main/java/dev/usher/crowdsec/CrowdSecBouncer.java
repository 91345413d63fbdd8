package dev.usher.crowdsec;

import dev.usher.config.CrowdSecSetting;
import dev.usher.rules.Bans;

import java.util.List;

/**
 * Usher as a CrowdSec bouncer: follows the local API named by the config in service ({@code crowdsec:}) into the
 * shared {@link Bans} table, which every new connection and every request is checked against. A reload with the
 * same setting changes nothing; another one starts a new stream (the bans known so far stay until its first answer
 * replaces them); none stops it and lifts every ban.
 *
 * <p>Threading: {@link #follow} and {@link #close} are called by the reloading thread, one at a time.
 */
public final class CrowdSecBouncer implements AutoCloseable {
    private final Bans bans;
    private DecisionStream stream;

    public CrowdSecBouncer(Bans bans) {
        this.bans = bans;
    }

    /** Follows {@code setting} from now on (null: no CrowdSec). */
    public synchronized void follow(CrowdSecSetting setting) {
        if (stream != null && stream.setting().equals(setting)) {
            return;
        }
        if (stream != null) {
            stream.stop();
            stream = null;
        }
        if (setting == null) {
            bans.replace(List.of(), List.of());
            return;
        }
        stream = new DecisionStream(setting, bans);
        stream.start();
    }

    @Override
    public synchronized void close() {
        if (stream != null) {
            stream.stop();
            stream = null;
        }
    }
}
