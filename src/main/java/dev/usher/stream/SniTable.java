package dev.usher.stream;

import java.util.HashMap;
import java.util.Map;

/**
 * TLS server name → what serves it: exact names first, then one-label wildcards ({@code *.example.com} matches
 * {@code a.example.com}, not {@code a.b.example.com} nor {@code example.com}), as for sites. Immutable once built.
 */
final class SniTable<T> {
    private final Map<String, T> exact = new HashMap<>();
    /** Keyed by the part after {@code *.}. */
    private final Map<String, T> wildcard = new HashMap<>();

    /** Adds {@code name} (lower-case, as the config reader leaves it); only while building. */
    void put(String name, T value) {
        if (name.startsWith("*.")) {
            wildcard.put(name.substring(2), value);
        } else {
            exact.put(name, value);
        }
    }

    boolean isEmpty() {
        return exact.isEmpty() && wildcard.isEmpty();
    }

    /** What serves {@code serverName} (lower-case, as the ClientHello parser gives it), or null. */
    T lookup(String serverName) {
        if (serverName == null) {
            return null;
        }
        T found = exact.get(serverName);
        if (found != null || wildcard.isEmpty()) {
            return found;
        }
        int dot = serverName.indexOf('.');
        return dot > 0 ? wildcard.get(serverName.substring(dot + 1)) : null;
    }
}
