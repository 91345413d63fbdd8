package dev.usher.config;

import java.nio.file.Path;

/**
 * Where a site's certificate comes from ({@code tls:} in a site; {@code auto} by default).
 *
 * @param kind what kind of source
 * @param cert for {@link Kind#FILES}: the certificate chain PEM file (leaf first); otherwise null
 * @param key  for {@link Kind#FILES}: the private key PEM file; otherwise null
 */
public record TlsPolicy(Kind kind, Path cert, Path key) {
    /** A certificate from the ACME CA ({@code acme:}), Let's Encrypt by default. */
    public static final TlsPolicy ACME = new TlsPolicy(Kind.ACME, null, null);
    /** A certificate from Usher's local CA. */
    public static final TlsPolicy INTERNAL = new TlsPolicy(Kind.INTERNAL, null, null);
    /** Plain HTTP only: the {@code http://} prefix, or HTTPS switched off for the whole file. */
    public static final TlsPolicy NONE = new TlsPolicy(Kind.NONE, null, null);

    /** The certificate sources. */
    public enum Kind {
        ACME, INTERNAL, FILES, NONE
    }

    /** Certificate and key from files the user keeps up to date (reloaded when they change). */
    public static TlsPolicy files(Path cert, Path key) {
        return new TlsPolicy(Kind.FILES, cert, key);
    }

    /** What {@code tls: auto} means for {@code name}: the local CA for local names, ACME for the rest. */
    public static TlsPolicy auto(String name) {
        return LocalNames.isLocal(name) ? INTERNAL : ACME;
    }

    /** True when the site is served over HTTPS (and plain-HTTP requests for it are redirected). */
    public boolean https() {
        return kind != Kind.NONE;
    }

    /** The policy as written in the file. */
    @Override
    public String toString() {
        return switch (kind) {
            case ACME -> "acme";
            case INTERNAL -> "internal";
            case FILES -> "{cert: " + cert + ", key: " + key + "}";
            case NONE -> "none (plain HTTP)";
        };
    }
}
