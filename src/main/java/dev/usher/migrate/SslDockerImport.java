package dev.usher.migrate;

import dev.usher.json.JsonReader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * SSLDocker's {@code conf.json} ({@code Email}, {@code GzipOn}, {@code Http2https}, {@code MaxHeader},
 * {@code Certs}, {@code ProxyItems}: {@code {Host, Target}}) and the certificates in its {@code Certs} folder, which
 * is Go's autocert cache: one file per name holding the private key and then the chain ({@code NAME} for ECDSA,
 * {@code NAME+rsa} for RSA); the account key and challenge tokens beside them are not certificates.
 */
final class SslDockerImport {
    static final String FORMAT = "SSLDocker";
    private static final Set<String> KNOWN = Set.of("Email", "GzipOn", "Http2https", "MaxHeader", "Certs",
            "ProxyItems");

    private SslDockerImport() {
    }

    /**
     * @param file  the JSON file
     * @param certs the autocert cache folder, or null for the file's {@code Certs} (relative to the file's folder)
     */
    static Conversion read(Path file, Path certs) throws ImportException {
        Object parsed;
        try {
            parsed = JsonReader.parse(SourceFiles.text(file));
        } catch (JsonReader.BadJson e) {
            throw new ImportException(file + " is not valid JSON: " + e.getMessage());
        }
        if (!(parsed instanceof Map<?, ?> top)) {
            throw new ImportException(file + " is not SSLDocker's config: expected a JSON object");
        }
        String name = file.getFileName().toString();
        Conversion.Builder out = new Conversion.Builder("SSLDocker config " + file);
        Origin whole = new Origin(FORMAT, name, "top level");
        for (Object key : top.keySet()) {
            if (!KNOWN.contains(String.valueOf(key))) {
                out.notConverted(whole, "\"" + key + "\"", "not a setting SSLDocker documents; left out");
            }
        }
        if (top.get("Email") instanceof String email && !email.isBlank()) {
            out.globals(out.globals().withEmail(email.strip()));
        }
        boolean gzip = !Boolean.FALSE.equals(top.get("GzipOn"));
        if (Boolean.FALSE.equals(top.get("Http2https"))) {
            out.changed(whole, "\"Http2https\": false", "Usher always redirects plain HTTP to HTTPS for an HTTPS "
                    + "site; write a site as http://NAME to serve it over plain HTTP only");
        }
        if (top.get("MaxHeader") instanceof Number max) {
            out.changed(whole, "\"MaxHeader\": " + max.longValue(), "not carried over: Usher keeps its own request "
                    + "head limit (limits.header_size, 16 KiB by default)");
        }
        sites(top.get("ProxyItems"), name, gzip, out);
        Path folder = certs;
        if (folder == null && top.get("Certs") instanceof String c && !c.isBlank()) {
            Path base = file.toAbsolutePath().getParent();
            folder = base.resolve(c);
        }
        if (folder != null) {
            certificates(folder, out);
        }
        return out.build();
    }

    private static void sites(Object items, String file, boolean gzip, Conversion.Builder out) {
        if (!(items instanceof List<?> list)) {
            out.notConverted(new Origin(FORMAT, file, "ProxyItems"), "ProxyItems", "missing or not a list");
            return;
        }
        Map<String, SiteEntry.Builder> byHost = new LinkedHashMap<>();
        Map<String, List<String>> upstreams = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            Origin origin = new Origin(FORMAT, file, "ProxyItems[" + i + "]");
            if (!(list.get(i) instanceof Map<?, ?> item) || !(item.get("Host") instanceof String host)
                    || !(item.get("Target") instanceof String target)) {
                out.notConverted(origin, "a proxy item", "needs \"Host\" and \"Target\" as strings");
                continue;
            }
            BackendText.Backend backend = BackendText.parse(target, "localhost");
            if (!backend.ok()) {
                out.notConverted(origin, host + " → " + target, backend.problem());
                continue;
            }
            HostText.Host name = HostText.parse(host);
            if (byHost.containsKey(name.ascii())) {
                out.changed(origin, host, "listed more than once; Usher balances between its targets in turn");
            } else {
                byHost.put(name.ascii(), SiteEntry.builder(name.ascii(), origin).writtenAs(name.writtenAs())
                        .gzip(gzip ? null : false));
                upstreams.put(name.ascii(), new ArrayList<>());
            }
            upstreams.get(name.ascii()).add(backend.address());
        }
        byHost.forEach((host, site) -> out.site(site.proxy(upstreams.get(host)).build()));
    }

    /** Every autocert cache entry that holds a key and a chain, for the name it is filed under. */
    private static void certificates(Path folder, Conversion.Builder out) throws ImportException {
        if (!Files.isDirectory(folder)) {
            out.notConverted(new Origin(FORMAT, folder.toString(), "Certs"), "the certificates folder",
                    "not found; Usher orders new certificates");
            return;
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(folder)) {
            files = list.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new ImportException("cannot list " + folder + ": " + e.getMessage());
        }
        for (Path f : files) {
            String entry = f.getFileName().toString();
            String host = entry.endsWith("+rsa") ? entry.substring(0, entry.length() - 4) : entry;
            if (host.contains("+") || host.startsWith("acme_account") || host.startsWith(".")) {
                continue; // the account key, challenge tokens, temporary files
            }
            String pem = SourceFiles.pem(f);
            out.certificate(FoundCertificate.acme(new Origin(FORMAT, f.toString(), "certificate " + host),
                    List.of(HostText.parse(host).ascii()), pem, f.toString(), pem, f.toString()));
        }
    }
}
