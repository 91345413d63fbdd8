package dev.usher.upstream;

/** One active health check of one backend, started once; it reports its verdict unless cancelled first. */
interface Probe {
    void start();

    /** Ends the probe without a verdict (checks stopped). */
    void cancel();
}
