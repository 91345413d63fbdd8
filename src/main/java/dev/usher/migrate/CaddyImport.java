package dev.usher.migrate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Caddy: a Caddyfile (global options, site blocks, snippets and imports) and the certificates in Caddy's data folder
 * ({@code certificates/<issuer>/<name>/<name>.crt} and {@code .key}); those of Caddy's own local CA are left, since
 * Usher's local CA makes its own.
 */
final class CaddyImport {
    static final String FORMAT = "Caddyfile";

    private CaddyImport() {
    }

    /**
     * @param file  the Caddyfile
     * @param certs Caddy's data folder (or its {@code certificates} folder), or null for the storage the global
     *              options name, else where Caddy keeps it by default
     */
    static Conversion read(Path file, Path certs) throws ImportException {
        return read(file, certs, CaddyfileLexer.processEnvironment());
    }

    static Conversion read(Path file, Path certs, Function<String, String> env) throws ImportException {
        Caddyfile caddyfile = Caddyfile.read(file, env);
        Conversion.Builder out = new Conversion.Builder("Caddyfile " + file);
        Path base = file.toAbsolutePath().getParent();
        CaddyGlobals globals = new CaddyGlobals(caddyfile.global(), base, out);
        for (Caddyfile.SiteBlock block : caddyfile.sites()) {
            new CaddySite(block, globals, out).convert();
        }
        Path folder = certificatesFolder(certs != null ? certs : globals.storage, env);
        if (folder != null) {
            storage(folder, out);
        } else if (certs != null) {
            out.notConverted(new Origin(FORMAT, certs.toString(), "--certs"), "certificates folder",
                    "no certificates/ folder found there");
        }
        return out.build();
    }

    /** A certificate pair named by {@code tls CERT KEY}: the user's files, used where they are. */
    static void userFiles(String cert, String key, Caddyfile.SiteBlock block, Origin at, Conversion.Builder out) {
        Path certPath = Path.of(cert).toAbsolutePath();
        Path keyPath = Path.of(key).toAbsolutePath();
        try {
            List<String> names = new ArrayList<>();
            for (String a : block.addresses()) {
                String host = a.replaceAll("^[a-z]+://", "").replaceAll("[:/].*$", "");
                names.add(HostText.parse(host).ascii());
            }
            out.certificate(new FoundCertificate(at, names, SourceFiles.pem(certPath), certPath.toString(),
                    SourceFiles.pem(keyPath), keyPath.toString(), FoundCertificate.Kind.USER_FILES,
                    new FoundCertificate.Files(certPath, keyPath)));
        } catch (ImportException e) {
            out.notConverted(at, "tls " + cert + " " + key, e.getMessage());
        }
    }

    private static Path certificatesFolder(Path given, Function<String, String> env) {
        List<Path> candidates = new ArrayList<>();
        if (given != null) {
            candidates.add(given);
        } else {
            String xdg = env.apply("XDG_DATA_HOME");
            if (xdg != null && !xdg.isBlank()) {
                candidates.add(Path.of(xdg, "caddy"));
            }
            candidates.add(Path.of("/var/lib/caddy/.local/share/caddy"));
            String home = env.apply("HOME");
            if (home != null && !home.isBlank()) {
                candidates.add(Path.of(home, ".local/share/caddy"));
            }
        }
        for (Path c : candidates) {
            for (Path f : List.of(c.resolve("certificates"), c.resolve("caddy/certificates"), c)) {
                if (Files.isDirectory(f) && f.getFileName().toString().equals("certificates")) {
                    return f;
                }
            }
        }
        return null;
    }

    private static void storage(Path folder, Conversion.Builder out) throws ImportException {
        List<Path> issuers = list(folder);
        for (Path issuer : issuers) {
            String id = issuer.getFileName().toString();
            if (id.equals("local")) {
                out.changed(new Origin(FORMAT, issuer.toString(), "local"), "certificates of Caddy's local CA",
                        "not imported: Usher's local CA makes its own (usher trust shows how to trust it)");
                continue;
            }
            for (Path dir : list(issuer)) {
                String stored = dir.getFileName().toString();
                Path crt = dir.resolve(stored + ".crt");
                Path key = dir.resolve(stored + ".key");
                if (!Files.isRegularFile(crt) || !Files.isRegularFile(key)) {
                    continue;
                }
                String name = stored.startsWith("wildcard_.") ? "*" + stored.substring("wildcard_".length()) : stored;
                Origin origin = new Origin(FORMAT, dir.toString(), "certificate " + name + " from " + id);
                out.certificate(FoundCertificate.acme(origin, List.of(name), SourceFiles.pem(crt), crt.toString(),
                        SourceFiles.pem(key), key.toString()));
            }
        }
    }

    private static List<Path> list(Path dir) throws ImportException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new ImportException("cannot list " + dir + ": " + e.getMessage());
        }
    }
}
