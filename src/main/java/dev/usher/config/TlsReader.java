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
 * Reads a site's {@code tls:} ({@code auto}, {@code acme}, {@code internal}, {@code off}, {@code {cert: FILE, key:
 * FILE}}, or {@code {dns: {...}, wildcard: true}}) and decides what {@code auto} means for the site's name. A public
 * wildcard certificate needs the DNS-01 challenge ({@code acme.dns} or the site's own {@code tls.dns}); without it, a
 * wildcard is an error with the ways out.
 */
final class TlsReader {
    private static final List<String> WORDS = List.of("auto", "acme", "internal", "off", "passthrough");
    private static final Map<String, String> ALIASES = Map.of("letsencrypt", "acme", "public", "acme",
            "local", "internal", "self_signed", "internal", "selfsigned", "internal", "none", "off",
            "http", "off", "plain", "off", "on", "auto");
    private static final Keys MAPPING = Keys.of("cert", "key", "dns", "wildcard")
            .withAliases(Map.ofEntries(Map.entry("certificate", "cert"), Map.entry("cert_file", "cert"),
                    Map.entry("chain", "cert"), Map.entry("fullchain", "cert"), Map.entry("key_file", "key"),
                    Map.entry("private_key", "key"), Map.entry("privkey", "key"), Map.entry("dns_challenge", "dns"),
                    Map.entry("dns01", "dns"), Map.entry("provider", "dns"), Map.entry("dns_provider", "dns"),
                    Map.entry("wildcards", "wildcard"), Map.entry("share", "wildcard")));

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;
    private final boolean httpsOn;
    private final DnsReader dnsReader;
    private final boolean globalDns01;

    /**
     * @param dnsReader   reads a site's own {@code tls.dns}; null where it is refused (container labels)
     * @param globalDns01 true when {@code acme.dns} is written (the CA's wildcards and any ACME name can then be
     *                    validated over DNS-01)
     */
    TlsReader(NodeWalker walker, Values values, Path baseDir, boolean httpsOn, DnsReader dnsReader,
              boolean globalDns01) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
        this.httpsOn = httpsOn;
        this.dnsReader = dnsReader;
        this.globalDns01 = globalDns01;
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
        Optional<TlsPolicy> written = field.value() instanceof MappingNode ? mapping(field, name.name())
                : word(field, name.name());
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
            case "passthrough" -> TlsPolicy.PASSTHROUGH;
            default -> TlsPolicy.auto(name);
        });
    }

    /** {@code {cert, key}} (files), or {@code {dns, wildcard}} (a certificate as {@code auto} gives it). */
    private Optional<TlsPolicy> mapping(Field field, String name) {
        Map<String, Field> fields = walker.fields(field.value(), field.path(), "{cert: FILE, key: FILE} (PEM "
                + "files: the chain, leaf first, and its private key), or {dns: {...}, wildcard: true}", MAPPING);
        if (fields.containsKey("cert") || fields.containsKey("key")) {
            for (String other : List.of("dns", "wildcard")) {
                Field extra = fields.get(other);
                if (extra != null) {
                    walker.error(extra.keyNode(), extra.path(), "\"" + other + "\" is for certificates Usher obtains; "
                            + "with cert: and key: the files are the certificate");
                }
            }
            return files(field, fields);
        }
        TlsPolicy policy = TlsPolicy.auto(name);
        int errors = walker.errorCount();
        Field wildcard = fields.get("wildcard");
        if (wildcard != null && values.bool(wildcard).orElse(false)) {
            policy = wildcardOf(wildcard, name, policy);
        }
        Field dns = fields.get("dns");
        if (dns != null) {
            if (dnsReader == null) {
                walker.error(dns.keyNode(), dns.path(), "tls.dns cannot come from container labels (it names "
                        + "programs and secret files of this machine); set acme.dns, or the site's tls.dns, in "
                        + "usher.yaml");
            } else if (policy.kind() == TlsPolicy.Kind.INTERNAL) {
                walker.error(dns.keyNode(), dns.path(), "\"" + name + "\" is a local name: its certificate comes "
                        + "from Usher's local CA, which needs no challenge; dns: is for names a public CA checks");
            } else {
                policy = dnsReader.read(dns).map(policy::withDns).orElse(policy);
            }
        }
        return walker.errorCount() == errors ? Optional.of(policy) : Optional.empty();
    }

    /** {@code policy} serving the site with the certificate for {@code *.PARENT}, unless that cannot be. */
    private TlsPolicy wildcardOf(Field field, String name, TlsPolicy policy) {
        if (LocalNames.isIpAddress(name)) {
            walker.error(field.value(), field.path(), "an IP address has no parent name to share a wildcard under");
            return policy;
        }
        TlsPolicy shared = policy.withWildcard();
        String certificate = shared.certificateName(name);
        String parent = certificate.substring(2);
        if (parent.indexOf('.') < 0 && !parent.equals("localhost")
                || policy.kind() == TlsPolicy.Kind.INTERNAL && !LocalNames.isLocal(certificate)) {
            walker.error(field.value(), field.path(), "the shared certificate would be " + certificate + ", a "
                    + "wildcard over a whole suffix, which browsers refuse; give this site its own certificate");
            return policy;
        }
        return shared;
    }

    private Optional<TlsPolicy> files(Field field, Map<String, Field> fields) {
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

    /** A wildcard can have a local or a file certificate, or an ACME one when DNS-01 is set up. */
    private Optional<TlsPolicy> checkWildcard(Field site, String name, TlsPolicy policy, Field field) {
        if (policy.kind() != TlsPolicy.Kind.ACME || !policy.certificateName(name).startsWith("*.")
                || policy.dns() != null || globalDns01) {
            return Optional.of(policy);
        }
        String certificate = policy.certificateName(name);
        String message = "\"" + certificate + "\" is a wildcard: a public CA certifies wildcards only through the "
                + "DNS-01 challenge; set it up with acme: {dns: {provider: ...}} (or tls: {dns: {...}} in this site), "
                + "or give each name its own site, or use tls: {cert: FILE, key: FILE}, tls: internal, or the "
                + "http:// prefix";
        if (field == null) {
            walker.error(site.keyNode(), site.path(), message);
        } else {
            walker.error(field.value(), field.path(), message);
        }
        return Optional.empty();
    }
}
