package dev.usher.migrate;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.schema.CoreSchema;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Traefik: a dynamic configuration file (YAML or TOML), a static one (which names the dynamic files through
 * {@code providers.file}, the ACME resolver's email, CA and {@code acme.json}, and the entry points with TLS), or a
 * compose file whose services carry Traefik's labels; and the certificates in {@code acme.json}.
 */
final class TraefikImport {
    static final String FORMAT = "Traefik";

    private TraefikImport() {
    }

    /**
     * @param source a dynamic or static configuration file, or a compose file
     * @param certs  Traefik's {@code acme.json}, or null to take the static configuration's, or one beside the source
     */
    static Conversion read(Path source, Path certs) throws ImportException {
        Conversion.Builder out = new Conversion.Builder("Traefik configuration " + source);
        Object tree = parse(source);
        Path acme = certs;
        Set<String> tlsEntryPoints = new HashSet<>();
        if (isCompose(tree)) {
            TraefikLabels.staticFlags(tree, out);
            new TraefikDynamic(out, source.getFileName().toString(), tlsEntryPoints)
                    .convert(TraefikLabels.dynamic(tree, source.getFileName().toString(), out));
        } else if (isStatic(tree)) {
            Path base = source.toAbsolutePath().getParent();
            Tree.map(tree, "entryPoints").forEach((name, ep) -> {
                if (Tree.at(ep, "http", "tls") != null) {
                    tlsEntryPoints.add(name);
                }
            });
            Tree.map(tree, "certificatesResolvers").forEach((name, resolver) -> {
                Object acmeCfg = Tree.get(resolver, "acme");
                if (Tree.string(acmeCfg, "email") != null && out.globals().email() == null) {
                    out.globals(out.globals().withEmail(Tree.string(acmeCfg, "email")));
                }
                String ca = Tree.string(acmeCfg, "caServer");
                if (ca != null && out.globals().acmeCa() == null) {
                    out.globals(out.globals().withAcme(ca, null));
                }
            });
            if (acme == null) {
                acme = Tree.map(tree, "certificatesResolvers").values().stream()
                        .map(r -> Tree.string(Tree.get(r, "acme"), "storage")).filter(s -> s != null)
                        .map(s -> base.resolve(s)).filter(Files::isRegularFile).findFirst().orElse(null);
            }
            Object fileProvider = Tree.at(tree, "providers", "file");
            if (Tree.at(tree, "providers", "docker") != null) {
                out.changed(new Origin(FORMAT, source.getFileName().toString(), "providers.docker"), "docker provider",
                        "container labels are not in this file: run usher import traefik on the compose file too");
            }
            for (Path dynamic : dynamicFiles(fileProvider, base)) {
                new TraefikDynamic(out, dynamic.getFileName().toString(), tlsEntryPoints).convert(parse(dynamic));
            }
        } else {
            new TraefikDynamic(out, source.getFileName().toString(), tlsEntryPoints).convert(tree);
        }
        if (acme == null) {
            Path base = source.toAbsolutePath().getParent();
            acme = Stream.of(base.resolve("acme.json"), base.resolve("letsencrypt/acme.json"))
                    .filter(Files::isRegularFile).findFirst().orElse(null);
        }
        if (acme != null) {
            AcmeJson.read(acme, out);
        }
        return out.build();
    }

    /** A provider name after {@code @} ({@code auth@file}) is dropped: names here are one namespace. */
    static String withoutProvider(String reference) {
        int at = reference.lastIndexOf('@');
        return at > 0 ? reference.substring(0, at) : reference;
    }

    /** {@code providers.file}: its {@code filename}, or the YAML and TOML files in its {@code directory}. */
    private static List<Path> dynamicFiles(Object provider, Path base) throws ImportException {
        if (provider == null) {
            return List.of();
        }
        String filename = Tree.string(provider, "filename");
        if (filename != null) {
            return List.of(base.resolve(filename));
        }
        String directory = Tree.string(provider, "directory");
        if (directory == null) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(base.resolve(directory))) {
            return files.filter(p -> p.toString().matches(".*\\.(ya?ml|toml)$")).sorted().toList();
        } catch (IOException e) {
            throw new ImportException("cannot list " + base.resolve(directory) + ": " + e.getMessage());
        }
    }

    private static boolean isCompose(Object tree) {
        return Tree.get(tree, "services") instanceof Map<?, ?> services && Tree.get(tree, "http") == null
                && services.values().stream().anyMatch(s -> Tree.get(s, "image") != null
                || Tree.get(s, "labels") != null || Tree.get(s, "build") != null);
    }

    private static boolean isStatic(Object tree) {
        return Tree.get(tree, "http") == null && (Tree.get(tree, "providers") != null
                || Tree.get(tree, "entryPoints") != null || Tree.get(tree, "certificatesResolvers") != null);
    }

    /** A YAML or TOML file (by its name: {@code .toml} is TOML) as maps and lists. */
    static Object parse(Path file) throws ImportException {
        String text = SourceFiles.text(file);
        if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".toml")) {
            try {
                return TomlReader.parse(text);
            } catch (TomlReader.TomlException e) {
                throw new ImportException(file + " is not TOML usher import reads: " + e.getMessage());
            }
        }
        try {
            LoadSettings settings = LoadSettings.builder().setSchema(new CoreSchema()).setLabel(file.toString())
                    .setAllowDuplicateKeys(false).build();
            return new Load(settings).loadFromString(text);
        } catch (YamlEngineException e) {
            throw new ImportException(file + " is not valid YAML: " + e.getMessage());
        }
    }
}
