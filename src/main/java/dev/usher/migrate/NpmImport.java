package dev.usher.migrate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Nginx Proxy Manager: its {@code database.sqlite} ({@code proxy_host}, {@code redirection_host}, {@code dead_host},
 * {@code stream}, {@code access_list} with its users and clients, {@code certificate}) and the certificate files NPM
 * keeps beside it: {@code letsencrypt/live/npm-N/} (certbot's folder, {@code /etc/letsencrypt} in NPM's container)
 * and {@code custom_ssl/npm-N/} in its data folder. What NPM's nginx templates make of each row is what is carried
 * over; soft-deleted rows ({@code is_deleted}) are skipped, as NPM does.
 */
final class NpmImport {
    static final String FORMAT = "NPM";
    private static final String HSTS = "max-age=63072000";

    private final NpmDatabase db;
    private final String file;
    private final Path dataFolder;
    private final Path letsencrypt;
    private final Conversion.Builder out;
    /** Certificate id to the (ASCII) names of the sites that use it. */
    private final Map<Integer, Set<String>> certificateUsers = new LinkedHashMap<>();
    private final Map<Integer, NpmDatabase.Row> certificates = new HashMap<>();

    private NpmImport(NpmDatabase db, Path database, Path letsencrypt, Conversion.Builder out) {
        this.db = db;
        this.file = database.getFileName().toString();
        this.dataFolder = database.toAbsolutePath().getParent();
        this.letsencrypt = letsencrypt;
        this.out = out;
    }

    /**
     * @param source NPM's {@code database.sqlite}, or its data folder
     * @param certs  certbot's folder (NPM's {@code /etc/letsencrypt}), or null to look beside the data folder
     */
    static Conversion read(Path source, Path certs) throws ImportException {
        Path database = Files.isDirectory(source) ? source.resolve("database.sqlite") : source;
        Conversion.Builder out = new Conversion.Builder("NPM database " + database);
        try (NpmDatabase db = NpmDatabase.open(database)) {
            Path data = database.toAbsolutePath().getParent();
            Path le = certs != null ? certs : findLetsencrypt(data);
            NpmImport npm = new NpmImport(db, database, le, out);
            npm.readAll();
        }
        return out.build();
    }

    /** Where NPM's compose file mounts certbot's folder: {@code ./letsencrypt} beside {@code ./data}, usually. */
    private static Path findLetsencrypt(Path data) {
        for (Path candidate : List.of(data.resolveSibling("letsencrypt"), data.resolve("letsencrypt"),
                Path.of("/etc/letsencrypt"))) {
            if (Files.isDirectory(candidate.resolve("live"))) {
                return candidate;
            }
        }
        return data.resolveSibling("letsencrypt");
    }

    private void readAll() throws ImportException {
        for (NpmDatabase.Row c : db.rows("certificate")) {
            if (!c.deleted()) {
                certificates.put(c.id(), c);
            }
        }
        Map<Integer, NpmDatabase.Row> lists = new HashMap<>();
        for (NpmDatabase.Row l : db.rows("access_list")) {
            if (!l.deleted()) {
                lists.put(l.id(), l);
            }
        }
        List<NpmDatabase.Row> auth = db.rows("access_list_auth");
        List<NpmDatabase.Row> clients = db.rows("access_list_client");
        for (NpmDatabase.Row row : db.rows("proxy_host")) {
            if (!row.deleted()) {
                proxyHost(row, lists, auth, clients);
            }
        }
        for (NpmDatabase.Row row : db.rows("redirection_host")) {
            if (!row.deleted()) {
                redirectionHost(row);
            }
        }
        for (NpmDatabase.Row row : db.rows("dead_host")) {
            if (!row.deleted()) {
                deadHost(row);
            }
        }
        for (NpmDatabase.Row row : db.rows("stream")) {
            if (!row.deleted()) {
                stream(row);
            }
        }
        defaultSite();
        certificateFiles();
    }

    private void proxyHost(NpmDatabase.Row row, Map<Integer, NpmDatabase.Row> lists, List<NpmDatabase.Row> auth,
                           List<NpmDatabase.Row> clients) {
        Origin origin = origin("proxy_host", row);
        String scheme = row.text("forward_scheme").toLowerCase(Locale.ROOT);
        String host = row.text("forward_host");
        int port = row.integer("forward_port", 80);
        String backend = hostPort(host, port);
        String reason = null;
        if (scheme.equals("https")) {
            reason = "the backend is spoken to over HTTPS, which usher import does not convert yet (Usher has "
                    + "to: https://... with upstream_tls:; NPM did not check its certificate)";
            out.notConverted(origin, "forward https://" + host + ":" + port, reason + "; written as a comment");
        }
        notes(row, origin);
        Object locations = row.json("locations");
        if (locations instanceof List<?> list) {
            for (Object l : list) {
                if (l instanceof Map<?, ?> loc) {
                    out.notConverted(origin, "custom location " + loc.get("path") + " → " + loc.get("forward_host")
                            + ":" + number(loc.get("forward_port")), "usher import does not convert custom locations yet (Usher has paths:; add it by hand); "
                            + "requests for that path go to the host's own backend");
                }
            }
        }
        NpmAccessList.Rules access = null;
        int listId = row.integer("access_list_id", 0);
        if (listId > 0 && lists.containsKey(listId)) {
            NpmDatabase.Row list = lists.get(listId);
            access = NpmAccessList.convert(list, auth.stream().filter(a -> a.integer("access_list_id", -1) == listId)
                    .toList(), clients.stream().filter(c -> c.integer("access_list_id", -1) == listId).toList());
            String what = "access list " + listId + " (" + list.text("name") + ")";
            for (String d : access.differences()) {
                out.changed(origin, what, d);
            }
            for (String d : access.dropped()) {
                out.notConverted(origin, what, d);
            }
            if (access.refusesEveryone() != null && reason == null) {
                reason = access.refusesEveryone();
                out.notConverted(origin, what, reason + "; the site is written as a comment");
            }
        }
        for (String name : row.strings("domain_names")) {
            SiteEntry.Builder site = site(row, name, origin, "proxy_host").proxy(List.of(backend));
            if (access != null) {
                access.users().forEach(site::user);
                access.allow().forEach(site::allow);
                access.deny().forEach(site::deny);
                if (!access.passAuth() && !access.users().isEmpty()) {
                    site.requestHeader(HeaderEdit.remove("Authorization"));
                }
            }
            if (reason != null) {
                site.commentedOut(reason);
            }
            add(site);
        }
    }

    private void redirectionHost(NpmDatabase.Row row) {
        Origin origin = origin("redirection_host", row);
        notes(row, origin);
        String scheme = row.text("forward_scheme").toLowerCase(Locale.ROOT);
        String target = (scheme.equals("http") || scheme.equals("https") ? scheme : "{scheme}") + "://"
                + row.text("forward_domain_name").strip() + (row.flag("preserve_path", false) ? "{uri}" : "");
        int status = row.integer("forward_http_code", 302);
        String reason = null;
        if (status == 300) {
            reason = "status 300 is not a redirect Usher gives (301, 302, 303, 307 or 308)";
            out.notConverted(origin, "redirect with status 300", reason);
        }
        for (String name : row.strings("domain_names")) {
            SiteEntry.Builder site = site(row, name, origin, "redirection_host").redirect(target, status);
            if (reason != null) {
                site.commentedOut(reason);
            }
            add(site);
        }
    }

    private void deadHost(NpmDatabase.Row row) {
        Origin origin = origin("dead_host", row);
        notes(row, origin);
        for (String name : row.strings("domain_names")) {
            add(site(row, name, origin, "dead_host").respond(404, null));
        }
    }

    /** A site for one of a row's names: HTTPS when the row has a certificate, with HSTS when NPM sent it. */
    private SiteEntry.Builder site(NpmDatabase.Row row, String name, Origin origin, String table) {
        HostText.Host host = HostText.parse(name);
        int certificate = row.integer("certificate_id", 0);
        boolean https = certificate > 0 && certificates.containsKey(certificate);
        SiteEntry.Builder site = SiteEntry.builder(host.ascii(), origin).writtenAs(host.writtenAs()).plainHttp(!https);
        if (https) {
            certificateUsers.computeIfAbsent(certificate, k -> new LinkedHashSet<>()).add(host.ascii());
            if (row.flag("ssl_forced", false)) {
                if (row.flag("hsts_enabled", false)) {
                    site.header(HeaderEdit.set("Strict-Transport-Security", HSTS
                            + (row.flag("hsts_subdomains", false) ? "; includeSubDomains" : "") + "; preload"));
                }
            } else {
                out.changed(origin, name, "Force SSL was off, so NPM answered plain HTTP too; Usher redirects plain "
                        + "HTTP to HTTPS");
            }
        } else if (certificate > 0) {
            out.notConverted(origin, name, "its certificate " + certificate + " is not in the database; imported as "
                    + "plain HTTP (remove http:// to have Usher get one)");
        }
        if (!row.flag("enabled", true)) {
            site.commentedOut("disabled in NPM");
            out.changed(origin, name, "disabled in NPM: written as a comment; remove the # to turn it on");
        }
        return site;
    }

    private void add(SiteEntry.Builder site) {
        out.site(site.build());
    }

    /** A JSON number as written: {@code 9000}, not {@code 9000.0}. */
    private static String number(Object value) {
        return value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                ? Long.toString(n.longValue()) : String.valueOf(value);
    }

    /** What NPM's per-host switches and nginx snippets did that Usher does not. */
    private void notes(NpmDatabase.Row row, Origin origin) {
        if (row.flag("caching_enabled", false)) {
            out.notConverted(origin, "Cache Assets", "Usher has no response cache; assets come from the backend "
                    + "every time");
        }
        if (row.flag("block_exploits", false)) {
            out.notConverted(origin, "Block Common Exploits", "Usher has no such pattern filter (it does refuse "
                    + "malformed and smuggling requests itself)");
        }
        String advanced = row.text("advanced_config").strip();
        if (!advanced.isEmpty()) {
            out.notConverted(origin, "advanced_config (" + advanced.lines().count() + " line(s) of nginx directives)",
                    "Usher cannot run nginx directives; carry over by hand what they did");
        }
    }

    /** NPM's answer for names it has no host for (settings: default-site). */
    /** {@code host:port}, an IPv6 address in brackets. */
    private static String hostPort(String host, int port) {
        return (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
    }

    /** A stream row: one {@code streams:} line per protocol it forwards (NPM's TCP and UDP check boxes). */
    private void stream(NpmDatabase.Row row) {
        Origin origin = origin("stream", row);
        int port = row.integer("incoming_port", 0);
        String host = row.text("forwarding_host").strip();
        int backendPort = row.integer("forwarding_port", 0);
        String to = hostPort(host, backendPort);
        boolean tcp = row.flag("tcp_forwarding", false);
        boolean udp = row.flag("udp_forwarding", false);
        if (port < 1 || port > 65535 || backendPort < 1 || backendPort > 65535 || host.isEmpty()) {
            out.notConverted(origin, "stream :" + port + " → " + to, "not a port and a backend Usher can relay");
            return;
        }
        if (!tcp && !udp) {
            out.notConverted(origin, "stream :" + port + " → " + to, "neither TCP nor UDP is forwarded in NPM");
            return;
        }
        if (tcp) {
            out.stream(new StreamEntry(origin, ":" + port, to));
        }
        if (udp) {
            out.stream(new StreamEntry(origin, ":" + port + "/udp", to));
        }
    }

    private void defaultSite() throws ImportException {
        for (NpmDatabase.Row s : db.rows("setting")) {
            if (s.text("id").equals("default-site") && !s.text("value").isEmpty()
                    && !s.text("value").equals("404") && !s.text("value").equals("congratulations")) {
                out.changed(new Origin(FORMAT, file, "setting default-site"), "default site: " + s.text("value"),
                        "Usher answers 404 for names it has no site for");
            }
        }
    }

    /** The certificate files of every certificate a site uses. */
    private void certificateFiles() {
        Map<String, Integer> emailCount = new HashMap<>();
        for (Map.Entry<Integer, Set<String>> e : certificateUsers.entrySet()) {
            NpmDatabase.Row cert = certificates.get(e.getKey());
            Origin origin = origin("certificate", cert);
            List<String> names = new ArrayList<>(e.getValue());
            Map<?, ?> meta = cert.object("meta");
            if (meta.get("letsencrypt_email") instanceof String email && !email.isBlank()) {
                emailCount.merge(email.strip(), 1, Integer::sum);
            }
            if (cert.text("provider").equals("letsencrypt")) {
                Path dir = letsencrypt.resolve("live").resolve("npm-" + cert.id());
                Path chain = dir.resolve("fullchain.pem");
                Path key = dir.resolve("privkey.pem");
                if (!Files.isReadable(chain) || !Files.isReadable(key)) {
                    out.notConverted(origin, "certificate npm-" + cert.id() + " for " + String.join(", ", names),
                            "no " + chain + " and privkey.pem beside it (give certbot's folder with --certs); "
                                    + "Usher gets a new one");
                    continue;
                }
                try {
                    out.certificate(FoundCertificate.acme(origin, names, SourceFiles.pem(chain), chain.toString(),
                            SourceFiles.pem(key), key.toString()));
                } catch (ImportException ex) {
                    out.notConverted(origin, "certificate npm-" + cert.id(), ex.getMessage());
                }
            } else {
                uploaded(cert, origin, names, meta);
            }
        }
        if (!emailCount.isEmpty()) {
            String most = emailCount.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
            out.globals(out.globals().withEmail(most));
        }
    }

    /** A certificate uploaded into NPM: the files NPM wrote, else the PEM it keeps in the row's meta. */
    private void uploaded(NpmDatabase.Row cert, Origin origin, List<String> names, Map<?, ?> meta) {
        Path dir = dataFolder.resolve("custom_ssl").resolve("npm-" + cert.id());
        Path chain = dir.resolve("fullchain.pem");
        Path key = dir.resolve("privkey.pem");
        try {
            if (Files.isReadable(chain) && Files.isReadable(key)) {
                out.certificate(FoundCertificate.uploaded(origin, names, SourceFiles.pem(chain), chain.toString(),
                        SourceFiles.pem(key), key.toString()));
                return;
            }
        } catch (ImportException e) {
            out.notConverted(origin, "certificate npm-" + cert.id(), e.getMessage());
            return;
        }
        if (meta.get("certificate") instanceof String pem && meta.get("certificate_key") instanceof String keyPem) {
            String full = meta.get("intermediate_certificate") instanceof String inter ? pem + "\n" + inter : pem;
            String where = file + " certificate " + cert.id();
            out.certificate(FoundCertificate.uploaded(origin, names, full, where, keyPem, where));
        } else {
            out.notConverted(origin, "certificate npm-" + cert.id() + " for " + String.join(", ", names),
                    "neither " + chain + " nor the certificate in the database; Usher gets a new one");
        }
    }

    private Origin origin(String table, NpmDatabase.Row row) {
        return new Origin(FORMAT, file, table + " " + row.id());
    }
}
