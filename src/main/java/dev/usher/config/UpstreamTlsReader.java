package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads {@code upstream_tls:}, how Usher checks an {@code https://} backend and shows itself to it: {@code ca}
 * (PEM certificates to trust instead of the system's), {@code server_name}, {@code insecure_skip_verify},
 * {@code client_cert} with {@code client_key}, and {@code alpn}. The files are read now: a file that cannot be read
 * or holds no certificate is an error of this config, never a surprise at the first request.
 */
final class UpstreamTlsReader {
    private static final Keys KEYS = Keys.of("ca", "server_name", "insecure_skip_verify", "client_cert",
                    "client_key", "alpn")
            .withAliases(Map.ofEntries(Map.entry("ca_file", "ca"), Map.entry("ca_cert", "ca"),
                    Map.entry("cacert", "ca"), Map.entry("root_ca", "ca"), Map.entry("root_cas", "ca"),
                    Map.entry("trusted_ca", "ca"), Map.entry("sni", "server_name"),
                    Map.entry("servername", "server_name"), Map.entry("tls_server_name", "server_name"),
                    Map.entry("insecure", "insecure_skip_verify"), Map.entry("skip_verify", "insecure_skip_verify"),
                    Map.entry("insecureskipverify", "insecure_skip_verify"), Map.entry("verify", "insecure_skip_verify"),
                    Map.entry("cert", "client_cert"), Map.entry("certificate", "client_cert"),
                    Map.entry("client_certificate", "client_cert"), Map.entry("key", "client_key"),
                    Map.entry("protocols", "alpn"), Map.entry("alpn_protocols", "alpn"),
                    Map.entry("versions", "alpn")));
    private static final List<String> PROTOCOLS = List.of(UpstreamTls.H2, UpstreamTls.HTTP_1_1);
    private static final Map<String, String> PROTOCOL_ALIASES = Map.of("http/2", UpstreamTls.H2, "http2",
            UpstreamTls.H2, "2", UpstreamTls.H2, "http/1", UpstreamTls.HTTP_1_1, "http1.1", UpstreamTls.HTTP_1_1,
            "h1", UpstreamTls.HTTP_1_1, "1.1", UpstreamTls.HTTP_1_1, "http11", UpstreamTls.HTTP_1_1);
    private static final String EXPECTED = "a mapping such as {ca: backend-ca.pem, server_name: app.internal}";

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;

    UpstreamTlsReader(NodeWalker walker, Values values, Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
    }

    /** The settings, starting from {@code base} for keys not given; nothing when they have errors. */
    Optional<UpstreamTls> read(Field section, UpstreamTls base) {
        if (NodeWalker.isNull(section.value())) {
            return Optional.of(base);
        }
        Map<String, Field> fields = walker.fields(section.value(), section.path(), EXPECTED, KEYS);
        boolean ok = true;
        Optional<Pem> ca = Optional.empty();
        if (fields.containsKey("ca")) {
            ca = pem(fields.get("ca"), "CA certificates", true);
            ok &= ca.isPresent();
        }
        Optional<String> serverName = Optional.ofNullable(base.serverName());
        if (fields.containsKey("server_name")) {
            Field f = fields.get("server_name");
            serverName = walker.text(f.value(), f.path(), "a host name such as app.internal", NodeWalker.STRING)
                    .flatMap(text -> values.parse(f.value(), f.path(), () -> serverName(text)));
            ok &= serverName.isPresent();
        }
        boolean skip = base.insecureSkipVerify();
        if (fields.containsKey("insecure_skip_verify")) {
            Optional<Boolean> b = values.bool(fields.get("insecure_skip_verify"));
            ok &= b.isPresent();
            skip = b.orElse(false);
        }
        Field certField = fields.get("client_cert");
        Field keyField = fields.get("client_key");
        if (certField != null && keyField == null || certField == null && keyField != null) {
            Field given = certField != null ? certField : keyField;
            walker.error(given.keyNode(), given.path(), "client_cert and client_key go together: the certificate "
                    + "Usher presents and its private key");
            ok = false;
        }
        Optional<Pem> cert = certField == null ? Optional.empty() : pem(certField, "the client certificate", true);
        Optional<Pem> key = keyField == null ? Optional.empty() : pem(keyField, "the client key", false);
        ok &= (certField == null || cert.isPresent()) && (keyField == null || key.isPresent());
        Optional<List<String>> alpn = fields.containsKey("alpn") ? alpn(fields.get("alpn"))
                : Optional.of(base.alpn());
        ok &= alpn.isPresent();
        if (skip && fields.containsKey("ca") && fields.containsKey("insecure_skip_verify")) {
            Field f = fields.get("insecure_skip_verify");
            walker.error(f.keyNode(), f.path(), "insecure_skip_verify: true accepts any certificate, so ca: would "
                    + "have no effect; keep one of them");
            ok = false;
        }
        if (!ok) {
            return Optional.empty();
        }
        return Optional.of(new UpstreamTls(
                ca.map(Pem::file).orElse(base.caFile()), ca.map(Pem::text).orElse(base.caPem()),
                serverName.orElse(null), skip,
                cert.map(Pem::file).orElse(base.clientCertFile()), cert.map(Pem::text).orElse(base.clientCertPem()),
                key.map(Pem::file).orElse(base.clientKeyFile()), key.map(Pem::text).orElse(base.clientKeyPem()),
                alpn.get()));
    }

    private record Pem(Path file, String text) {
    }

    /** A PEM file's text: certificates ({@code certificates}) that the JDK can read, or a private key. */
    private Optional<Pem> pem(Field field, String what, boolean certificates) {
        return walker.text(field.value(), field.path(), "a PEM file with " + what, NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    String pem;
                    try {
                        pem = Files.readString(path, StandardCharsets.US_ASCII);
                    } catch (IOException | RuntimeException e) {
                        throw new BadValue("cannot read " + path + " (" + what + ")");
                    }
                    if (certificates) {
                        checkCertificates(path, pem);
                    } else if (!pem.contains("-----BEGIN") || !pem.contains("PRIVATE KEY-----")) {
                        throw new BadValue(path + " holds no PEM private key (-----BEGIN PRIVATE KEY-----)");
                    }
                    return new Pem(path, pem);
                }));
    }

    private static void checkCertificates(Path path, String pem) throws BadValue {
        try {
            var found = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
            if (found.isEmpty()) {
                throw new BadValue(path + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
            }
        } catch (CertificateException e) {
            throw new BadValue(path + " holds no readable PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
    }

    private static String serverName(String text) throws BadValue {
        String name = text.strip().toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        if (HostNames.looksLikeIpv4(name) || HostNames.isIpv6(name)) {
            throw new BadValue("server_name is a name sent in SNI, not an IP address; leave it out to check the "
                    + "certificate against the backend's address");
        }
        HostNames.checkDnsName(name, true);
        return name;
    }

    private Optional<List<String>> alpn(Field field) {
        if (!(field.value() instanceof SequenceNode list) || list.getValue().isEmpty()) {
            walker.typeError(field.value(), field.path(), "a list of protocols such as [h2, http/1.1]");
            return Optional.empty();
        }
        List<String> result = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < list.getValue().size(); i++) {
            Node item = list.getValue().get(i);
            Field one = new Field(field.key(), field.keyNode(), item, field.path().index(i));
            Optional<String> word = values.word(one, "protocol", PROTOCOLS, PROTOCOL_ALIASES);
            if (word.isPresent() && result.contains(word.get())) {
                walker.error(item, one.path(), "\"" + word.get() + "\" is already in the list");
                ok = false;
            }
            word.ifPresent(result::add);
            ok &= word.isPresent();
        }
        return ok ? Optional.of(result) : Optional.empty();
    }
}
