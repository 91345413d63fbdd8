package dev.usher.migrate;

import java.nio.file.Path;
import java.util.Locale;

/** The set-ups {@code usher import} reads. */
public enum Format {
    /** Nginx Proxy Manager's {@code database.sqlite} and its certificate folders. */
    NPM("npm"),
    /** A Caddyfile, and the certificates in Caddy's data folder. */
    CADDY("caddy"),
    /** Traefik's dynamic configuration (YAML or TOML) or a compose file's labels, and its {@code acme.json}. */
    TRAEFIK("traefik"),
    /** SSLDocker's JSON config and its certificates folder. */
    SSLDOCKER("ssldocker");

    private final String word;

    Format(String word) {
        this.word = word;
    }

    /** The word on the command line. */
    public String word() {
        return word;
    }

    /** The format named {@code word}, or null. */
    public static Format of(String word) {
        for (Format f : values()) {
            if (f.word.equals(word.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        return null;
    }

    /**
     * Reads a source set-up.
     *
     * @param source the file (or folder) named on the command line
     * @param certs  where the source keeps its certificates, or null for where it keeps them by default
     */
    public Conversion read(Path source, Path certs) throws ImportException {
        return switch (this) {
            case NPM -> NpmImport.read(source, certs);
            case CADDY -> CaddyImport.read(source, certs);
            case TRAEFIK -> TraefikImport.read(source, certs);
            case SSLDOCKER -> SslDockerImport.read(source, certs);
        };
    }
}
