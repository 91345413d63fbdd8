package dev.usher.config;

import java.nio.file.Path;

/**
 * Where a site's certificate comes from ({@code tls:} in a site; {@code auto} by default).
 *
 * @param kind     what kind of source
 * @param cert     for {@link Kind#FILES}: the certificate chain PEM file (leaf first); otherwise null
 * @param key      for {@link Kind#FILES}: the private key PEM file; otherwise null
 * @param wildcard {@code tls: {wildcard: true}}: the site is served by the certificate for {@code *.PARENT}, which
 *                 it shares with the other sites under the same parent (one order, fewer names in public logs)
 * @param dns      {@code tls: {dns: ...}}: this site's own DNS-01 settings; null: those of {@code acme.dns}, if any
 */
public record TlsPolicy(Kind kind, Path cert, Path key, boolean wildcard, DnsSettings dns) {
    /** A certificate from the ACME CA ({@code acme:}), Let's Encrypt by default. */
    public static final TlsPolicy ACME = new TlsPolicy(Kind.ACME, null, null);
    /** A certificate from Usher's local CA. */
    public static final TlsPolicy INTERNAL = new TlsPolicy(Kind.INTERNAL, null, null);
    /**
     * Not terminated: the site's TLS connections are relayed as they are to its backend, which holds its own
     * certificate ({@code passthrough: true} or {@code tls: passthrough}). Usher only reads the ClientHello's name.
     */
    public static final TlsPolicy PASSTHROUGH = new TlsPolicy(Kind.PASSTHROUGH, null, null);
    /** Plain HTTP only: the {@code http://} prefix, or HTTPS switched off for the whole file. */
    public static final TlsPolicy NONE = new TlsPolicy(Kind.NONE, null, null);

    /** The certificate sources. */
    public enum Kind {
        ACME, INTERNAL, FILES, PASSTHROUGH, NONE
    }

    /** A policy for the site's own name, with the global DNS settings. */
    public TlsPolicy(Kind kind, Path cert, Path key) {
        this(kind, cert, key, false, null);
    }

    /** Certificate and key from files the user keeps up to date (reloaded when they change). */
    public static TlsPolicy files(Path cert, Path key) {
        return new TlsPolicy(Kind.FILES, cert, key);
    }

    /** What {@code tls: auto} means for {@code name}: the local CA for local names, ACME for the rest. */
    public static TlsPolicy auto(String name) {
        return LocalNames.isLocal(name) ? INTERNAL : ACME;
    }

    /** This policy with the site's certificate made for {@code *.PARENT}. */
    public TlsPolicy withWildcard() {
        return new TlsPolicy(kind, cert, key, true, dns);
    }

    /** This policy with the site's own DNS-01 settings. */
    public TlsPolicy withDns(DnsSettings settings) {
        return new TlsPolicy(kind, cert, key, wildcard, settings);
    }

    /**
     * The name of the certificate that serves {@code siteName}: the name itself, or with {@link #wildcard} the
     * one-label wildcard over its parent ({@code app.example.com} → {@code *.example.com}).
     */
    public String certificateName(String siteName) {
        if (!wildcard || siteName.startsWith("*.")) {
            return siteName;
        }
        return "*" + siteName.substring(siteName.indexOf('.'));
    }

    /** The policy of the certificate itself, the same for every site it serves. */
    public TlsPolicy ofCertificate() {
        return wildcard ? new TlsPolicy(kind, cert, key, false, dns) : this;
    }

    /** True when the site is served over HTTPS (and plain-HTTP requests for it are redirected). */
    public boolean https() {
        return kind != Kind.NONE;
    }

    /** True when Usher ends the site's TLS itself, with a certificate it holds (not for passthrough or none). */
    public boolean terminated() {
        return kind != Kind.NONE && kind != Kind.PASSTHROUGH;
    }

    /** The policy as written in the file, without secrets. */
    @Override
    public String toString() {
        String text = switch (kind) {
            case ACME -> "acme";
            case INTERNAL -> "internal";
            case FILES -> "{cert: " + cert + ", key: " + key + "}";
            case PASSTHROUGH -> "passthrough";
            case NONE -> "none (plain HTTP)";
        };
        return text + (dns == null ? "" : " (dns-01: " + dns.describe() + ")") + (wildcard ? ", wildcard" : "");
    }
}
