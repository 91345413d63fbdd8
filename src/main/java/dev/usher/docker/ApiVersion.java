package dev.usher.docker;

import java.util.Map;

/**
 * The Engine API version to ask for, negotiated from {@code GET /version} as Docker's own clients do: the daemon's
 * version, or the newest this code was written against when the daemon is newer, but never under the daemon's
 * minimum. Never a fixed version: a daemon that dropped an old one answers it with 400 (Docker 29 and Traefik's
 * hard-coded 1.24).
 *
 * @param major the major number, 1 so far
 * @param minor the minor number
 */
record ApiVersion(int major, int minor) implements Comparable<ApiVersion> {
    /** The newest version whose answers this code reads (the fields it uses have not changed since 1.24). */
    static final ApiVersion NEWEST_KNOWN = new ApiVersion(1, 51);

    /** {@code 1.41}. */
    static ApiVersion parse(String text) {
        String[] parts = text.strip().split("\\.");
        if (parts.length != 2) {
            throw new IllegalArgumentException("not an API version: \"" + text + "\"");
        }
        try {
            return new ApiVersion(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an API version: \"" + text + "\"");
        }
    }

    /** The version to use with a daemon whose {@code /version} answer is {@code version}. */
    static ApiVersion negotiate(Map<?, ?> version) {
        if (!(version.get("ApiVersion") instanceof String current)) {
            throw new IllegalArgumentException("the /version answer has no ApiVersion");
        }
        ApiVersion chosen = min(parse(current), NEWEST_KNOWN);
        if (version.get("MinAPIVersion") instanceof String minimum && chosen.compareTo(parse(minimum)) < 0) {
            chosen = parse(minimum);
        }
        return chosen;
    }

    private static ApiVersion min(ApiVersion a, ApiVersion b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public int compareTo(ApiVersion other) {
        return major != other.major ? Integer.compare(major, other.major) : Integer.compare(minor, other.minor);
    }

    /** The path prefix: {@code /v1.41}. */
    String prefix() {
        return "/v" + this;
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
