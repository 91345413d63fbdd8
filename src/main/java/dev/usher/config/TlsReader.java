package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Reads a site's {@code tls:} ({@code auto}, {@code acme}, {@code internal}, {@code off}, or
 * {@code {cert: FILE, key: FILE}}) and decides what {@code auto} means for the site's name. A public wildcard name
 * cannot get an ACME certificate (that needs the DNS-01 challenge), so it is an error with the ways out.
 */
final class TlsReader {
    private static final List<String> WORDS = List.of("auto", "acme", "internal", "off");
    private static final Map<String, String> ALIASES = Map.of("letsencrypt", "acme", "public", "acme",
            "local", "internal", "self_signed", "internal", "selfsigned", "internal", "none", "off",
            "http", "off", "plain", "off", "on", "auto");
    private static final Keys FILES = Keys.of("cert", "key")
            .withAliases(Map.of("certificate", "cert", "cert_file", "cert", "chain", "cert", "fullchain", "cert",
                    "key_file", "key", "private_key", "key", "privkey", "key"));

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;
    private final boolean httpsOn;

    TlsReader(NodeWalker walker, Values values, Path baseDir, boolean httpsOn) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
        this.httpsOn = httpsOn;
    }

    /**
     * The policy for a site, or nothing when {@code tls:} (or the name under the resulting policy) has errors.
     *
     * @param site  the site's entry (its key is where name-level errors point)
     * @param field the site's {@code tls:} field, or null when not written (then: {@code auto})
     */
    Optional<TlsPolicy> read(Field site, SiteNames.SiteName name, Field field) {
        if (field == null || NodeWalker.isNull(field.value())) {
            if (name.plainHttp() || !httpsOn) {
                return Optional.of(TlsPolicy.NONE);
            }
            return checkWildcard(site, name.name(), TlsPolicy.auto(name.name()), null);
        }
        Optional<TlsPolicy> written = field.value() instanceof MappingNode ? files(field) : word(field, name.name());
        if (written.isEmpty() || !written.get().https()) {
            return written;
        }
        if (name.plainHttp()) {
            walker.error(field.keyNode(), field.path(), "an http:// site is served over plain HTTP only; remove "
                    + "tls: or the http:// prefix");
            return Optional.empty();
        }
        if (!httpsOn) {
            walker.error(field.keyNode(), field.path(), "HTTPS is switched off (listen: https: off), so tls: has "
                    + "nothing to do; remove it or give listen.https an address");
            return Optional.empty();
        }
        return checkWildcard(site, name.name(), written.get(), field);
    }

    private Optional<TlsPolicy> word(Field field, String name) {
        Optional<String> word;
        if (field.value() instanceof org.snakeyaml.engine.v2.nodes.ScalarNode scalar
                && org.snakeyaml.engine.v2.nodes.Tag.BOOL.equals(scalar.getTag())) {
            word = Optional.of(Boolean.parseBoolean(scalar.getValue()) ? "auto" : "off");
        } else {
            word = values.word(field, "TLS policy", WORDS, ALIASES);
        }
        return word.map(w -> switch (w) {
            case "acme" -> TlsPolicy.ACME;
            case "internal" -> TlsPolicy.INTERNAL;
            case "off" -> TlsPolicy.NONE;
            default -> TlsPolicy.auto(name);
        });
    }

    private Optional<TlsPolicy> files(Field field) {
        Map<String, Field> fields = walker.fields(field.value(), field.path(),
                "{cert: FILE, key: FILE} (PEM files: the chain, leaf first, and its private key)", FILES);
        Optional<Path> cert = file(fields.get("cert"), field, "cert", "the certificate chain");
        Optional<Path> key = file(fields.get("key"), field, "key", "the private key");
        return cert.isPresent() && key.isPresent()
                ? Optional.of(TlsPolicy.files(cert.get(), key.get())) : Optional.empty();
    }

    private Optional<Path> file(Field field, Field parent, String key, String what) {
        if (field == null) {
            walker.error(parent.keyNode(), parent.path(), "missing \"" + key + "\": the PEM file with " + what);
            return Optional.empty();
        }
        return walker.text(field.value(), field.path(), "a PEM file with " + what, NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    if (!Files.isReadable(path)) {
                        throw new BadValue("cannot read " + path + " (" + what + ")");
                    }
                    return path;
                }));
    }

    /** A wildcard can have a local or a file certificate, not an ACME one (that needs DNS-01). */
    private Optional<TlsPolicy> checkWildcard(Field site, String name, TlsPolicy policy, Field field) {
        if (policy.kind() != TlsPolicy.Kind.ACME || !name.startsWith("*.")) {
            return Optional.of(policy);
        }
        String message = "\"" + name + "\" is a wildcard: a public CA certifies wildcards only through the DNS-01 "
                + "challenge, which Usher does not do yet; give each name its own site, or use tls: {cert: FILE, "
                + "key: FILE}, tls: internal, or the http:// prefix";
        if (field == null) {
            walker.error(site.keyNode(), site.path(), message);
        } else {
            walker.error(field.value(), field.path(), message);
        }
        return Optional.empty();
    }
}
