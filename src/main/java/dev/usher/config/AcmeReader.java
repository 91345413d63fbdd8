package dev.usher.config;

import dev.usher.config.AcmeSettings.ChallengeType;
import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads {@code email:} and {@code acme:} ({@code ca}, {@code trust}, {@code challenge}, {@code dns}) into
 * {@link AcmeSettings}. The CA may be a directory URL or one of the short names {@code letsencrypt},
 * {@code letsencrypt-staging}. With {@code dns} and no {@code challenge}, every name is validated over DNS-01.
 */
final class AcmeReader {
    private static final Keys ACME = Keys.of("ca", "trust", "challenge", "email", "dns")
            .withAliases(Map.ofEntries(Map.entry("directory", "ca"), Map.entry("url", "ca"),
                    Map.entry("server", "ca"), Map.entry("endpoint", "ca"), Map.entry("ca_root", "trust"),
                    Map.entry("root", "trust"), Map.entry("roots", "trust"), Map.entry("ca_cert", "trust"),
                    Map.entry("challenges", "challenge"), Map.entry("contact", "email"),
                    Map.entry("dns_challenge", "dns"), Map.entry("dns01", "dns"), Map.entry("dns-01", "dns"),
                    Map.entry("dns_provider", "dns"), Map.entry("provider", "dns")));
    private static final Map<String, URI> SHORT_NAMES = Map.of(
            "letsencrypt", AcmeSettings.LETS_ENCRYPT,
            "letsencrypt-staging", AcmeSettings.LETS_ENCRYPT_STAGING);
    private static final List<String> CHALLENGES = List.of("http-01", "tls-alpn-01", "dns-01");

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;
    private final DnsReader dnsReader;
    private boolean dnsWritten;

    AcmeReader(NodeWalker walker, Values values, Path baseDir, HostEnvironment env) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
        this.dnsReader = new DnsReader(walker, values, baseDir, env);
    }

    /** True when the last {@link #read} met an {@code acme.dns} (valid or not): wildcards then raise no error of their own. */
    boolean dnsWritten() {
        return dnsWritten;
    }

    AcmeSettings read(Optional<Field> email, Optional<Field> acme) {
        AcmeSettings d = AcmeSettings.DEFAULTS;
        Map<String, Field> fields = acme.map(f -> walker.fields(f.value(), f.path(),
                "a mapping of ACME settings (" + String.join(", ", ACME.allowed()) + ")", ACME)).orElse(Map.of());
        Optional<Field> emailField = email.isPresent() ? email : Optional.ofNullable(fields.get("email"));
        if (email.isPresent() && fields.containsKey("email")) {
            Field twice = fields.get("email");
            walker.error(twice.keyNode(), twice.path(), "the email is already given at the top level");
        }
        String address = emailField.flatMap(this::email).orElse(null);
        URI ca = Optional.ofNullable(fields.get("ca")).flatMap(this::ca).orElse(d.directory());
        Path trust = Optional.ofNullable(fields.get("trust")).flatMap(this::trustFile).orElse(null);
        Field dnsField = fields.get("dns");
        dnsWritten = dnsField != null && !NodeWalker.isNull(dnsField.value());
        DnsSettings dns = dnsWritten ? dnsReader.read(dnsField).orElse(null) : null;
        Field challengeField = fields.get("challenge");
        List<ChallengeType> challenges = Optional.ofNullable(challengeField).flatMap(this::challenges)
                .orElse(dnsWritten ? List.of(ChallengeType.DNS_01) : d.challenges());
        if (challengeField != null && dnsWritten != challenges.contains(ChallengeType.DNS_01)) {
            Node at = challengeField.value();
            YamlPath path = challengeField.path();
            if (at instanceof SequenceNode list) {
                for (int i = 0; i < list.getValue().size(); i++) {
                    if (list.getValue().get(i) instanceof org.snakeyaml.engine.v2.nodes.ScalarNode item
                            && item.getValue().toLowerCase(Locale.ROOT).startsWith("dns")) {
                        at = item;
                        path = path.index(i);
                    }
                }
            }
            walker.error(at, path, dnsWritten
                    ? "acme.dns is set but the challenge types leave out dns-01; add it (challenge: [http-01, dns-01] "
                    + "answers DNS-01 only where the CA offers nothing else: wildcards), or leave challenge out"
                    : "dns-01 needs a DNS provider: add dns: {provider: ...} under acme: (docs/config.md lists "
                    + "rfc2136, cloudflare, acme-dns and exec)");
        }
        if (dns == null) {
            challenges = challenges.stream().filter(c -> c != ChallengeType.DNS_01).toList();
            challenges = challenges.isEmpty() ? d.challenges() : challenges;
        } else if (!challenges.contains(ChallengeType.DNS_01)) {
            dns = null;
        }
        return new AcmeSettings(ca, address, trust, challenges, dns);
    }

    private Optional<String> email(Field field) {
        return walker.text(field.value(), field.path(), "an email address such as admin@example.com",
                NodeWalker.STRING).flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    String t = text.strip();
                    int at = t.indexOf('@');
                    if (at <= 0 || at != t.lastIndexOf('@') || at == t.length() - 1 || t.chars().anyMatch(
                            c -> c <= ' ' || c == ',' || c == '<' || c == '>')) {
                        throw new BadValue("\"" + text + "\" is not an email address (expected name@domain)");
                    }
                    return t;
                }));
    }

    private Optional<URI> ca(Field field) {
        return walker.text(field.value(), field.path(), "a directory URL or letsencrypt / letsencrypt-staging",
                NodeWalker.STRING).flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    URI known = SHORT_NAMES.get(text.strip().toLowerCase(Locale.ROOT));
                    if (known != null) {
                        return known;
                    }
                    try {
                        URI uri = new URI(text.strip());
                        if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                            throw new BadValue("the ACME directory must be an https:// URL (or letsencrypt, "
                                    + "letsencrypt-staging), found \"" + text + "\"");
                        }
                        return uri;
                    } catch (URISyntaxException e) {
                        throw new BadValue("\"" + text + "\" is not a URL: " + e.getReason());
                    }
                }));
    }

    private Optional<Path> trustFile(Field field) {
        return walker.text(field.value(), field.path(), "a PEM file with the CA's root certificate(s)",
                NodeWalker.STRING).flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    if (!Files.isReadable(path)) {
                        throw new BadValue("cannot read " + path + " (the PEM file with the CA's roots)");
                    }
                    return path;
                }));
    }

    private Optional<List<ChallengeType>> challenges(Field field) {
        List<Field> items = new ArrayList<>();
        if (field.value() instanceof SequenceNode list) {
            for (int i = 0; i < list.getValue().size(); i++) {
                Node item = list.getValue().get(i);
                items.add(new Field(field.key(), field.keyNode(), item, field.path().index(i)));
            }
        } else {
            items.add(field);
        }
        List<ChallengeType> result = new ArrayList<>();
        boolean ok = !items.isEmpty();
        for (Field item : items) {
            Optional<String> word = values.word(item, "challenge type", CHALLENGES,
                    Map.of("http", "http-01", "http01", "http-01", "tls", "tls-alpn-01", "alpn", "tls-alpn-01",
                            "tls-alpn", "tls-alpn-01", "tlsalpn01", "tls-alpn-01", "dns", "dns-01", "dns01",
                            "dns-01"));
            word.map(w -> switch (w) {
                case "http-01" -> ChallengeType.HTTP_01;
                case "dns-01" -> ChallengeType.DNS_01;
                default -> ChallengeType.TLS_ALPN_01;
            }).filter(t -> !result.contains(t)).ifPresent(result::add);
            ok &= word.isPresent();
        }
        if (items.isEmpty()) {
            walker.error(field.value(), field.path(), "the list of challenge types is empty; use http-01, "
                    + "tls-alpn-01, dns-01 or several");
        }
        return ok ? Optional.of(result) : Optional.empty();
    }
}
