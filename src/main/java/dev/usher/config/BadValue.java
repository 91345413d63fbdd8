package dev.usher.config;

/**
 * A value that does not parse, with a message fit to show the user. Thrown by the small value parsers
 * ({@link Durations}, {@link Sizes}, {@link SiteNames}, {@link Upstreams}, {@link ListenAddresses}) and caught by the
 * readers, which attach the node's position and YAML path. Carries no stack trace: it is an expected outcome.
 */
final class BadValue extends Exception {
    private static final long serialVersionUID = 1L;

    BadValue(String message) {
        super(message, null, false, false);
    }
}
