package dev.usher.observe;

/**
 * Metric families read at scrape time from parts of the running server that {@code observe} does not know
 * (listeners, backend pools and health, certificates). Called on the admin endpoint's event loop: must not block.
 */
@FunctionalInterface
public interface MetricsSource {
    /** Writes its families to {@code out}. */
    void write(PrometheusText out);
}
