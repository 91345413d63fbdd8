package dev.usher.config;

import java.util.Objects;

/**
 * A credential read from a file ({@code token_file:}) or the environment ({@code token: ${CF_API_TOKEN}}), never
 * from {@code usher.yaml} itself, so that the admin API (which shows the file) and backups (which hold it) never
 * carry it. {@link #toString()} says where it came from, never what it is.
 */
public final class Secret {
    private final String value;
    private final String origin;

    /**
     * @param value  the credential, without surrounding white space
     * @param origin where it came from, for messages: "the file /etc/usher/cf.token", "the environment variable X"
     */
    public Secret(String value, String origin) {
        this.value = Objects.requireNonNull(value);
        this.origin = Objects.requireNonNull(origin);
    }

    /** The credential itself: for the one request that needs it, never for a log line or an answer. */
    public String reveal() {
        return value;
    }

    /** Where it came from. */
    public String origin() {
        return origin;
    }

    /** Equal when both the value and its origin are: a rotated token makes a different setting (a reload picks it up). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Secret other && value.equals(other.value) && origin.equals(other.origin);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, origin);
    }

    @Override
    public String toString() {
        return "(secret from " + origin + ")";
    }
}
