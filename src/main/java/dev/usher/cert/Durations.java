package dev.usher.cert;

import java.time.Duration;

/** Waits and deadlines as the certificate logs speak of them: "4.5 s", "12 min", "3 h". */
final class Durations {
    private Durations() {
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        return s < 120 ? Math.max(s, 0) + (d.toMillis() < 1000 ? "." + d.toMillis() / 100 : "") + " s"
                : s < 7200 ? s / 60 + " min" : s / 3600 + " h";
    }
}
