package dev.usher.admin;

import dev.usher.json.JsonReader;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertificateStatus;
import dev.usher.config.ConfigEditor;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.LabelSite;
import dev.usher.config.SiteForm;
import dev.usher.fleet.Fleet;
import dev.usher.reload.ReloadResult;
import dev.usher.reload.Reloader;
import dev.usher.route.Route;
import dev.usher.route.RouteTable;
import dev.usher.upstream.UpstreamGroup;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.PRECONDITION_FAILED;
import static io.netty.handler.codec.http.HttpResponseStatus.PRECONDITION_REQUIRED;
import static io.netty.handler.codec.http.HttpResponseStatus.UNAUTHORIZED;
import static io.netty.handler.codec.http.HttpResponseStatus.UNPROCESSABLE_ENTITY;

/**
 * The {@code /api/} endpoints of the web UI (see docs/admin-api.md): session and login, the site list with status,
 * one site's form and YAML, add/change/rename/delete through {@link ConfigFile} and {@link ConfigEditor},
 * certificates, streams (read-only), reload, the raw config, backup and restore. Runs off the event loop (file IO, bcrypt, archives);
 * each call returns the whole {@link Answer}.
 */
final class AdminApi {
    static final String CSRF_HEADER = "X-Usher-CSRF";
    private static final String SITES = "/api/sites";
    private static final String CERTIFICATES = "/api/certificates/";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private final Sessions sessions;
    private final AdminSecret secret;
    private final ConfigFile config;
    private final Supplier<CertManager> certificates;
    private final Supplier<Reloader> reloader;
    private final Supplier<List<RouteTable>> tables;
    private final Supplier<Map<String, UpstreamGroup>> relays;
    private final RecentRequests recent;
    private final Supplier<Fleet> fleet;

    /**
     * {@code tables}: the running route tables, HTTPS first (its routes carry the backends of HTTPS sites);
     * {@code relays}: the running streams' and passthrough sites' backend groups.
     */
    AdminApi(Sessions sessions, AdminSecret secret, ConfigFile config, Supplier<CertManager> certificates,
             Supplier<Reloader> reloader, Supplier<List<RouteTable>> tables,
             Supplier<Map<String, UpstreamGroup>> relays, RecentRequests recent, Supplier<Fleet> fleet) {
        this.sessions = sessions;
        this.secret = secret;
        this.config = config;
        this.certificates = certificates;
        this.reloader = reloader;
        this.tables = tables;
        this.relays = relays;
        this.recent = recent;
        this.fleet = fleet;
    }

    /** True for paths that anyone may ask without a session: the UI needs them to show the login form. */
    static boolean open(String path) {
        return path.equals("/api/session") || path.equals("/api/login") || path.equals("/api/logout");
    }

    Answer handle(ApiRequest r) {
        try {
            if (!r.method().equals(HttpMethod.GET) && !r.path().equals("/api/login")
                    && !r.path().equals("/api/logout") && !r.tokenClient()) {
                String expected = secret.required() ? (r.session() == null ? null : r.session().csrf)
                        : sessions.openCsrf();
                if (!Sessions.same(r.headers().get(CSRF_HEADER), expected)) {
                    return Answer.error(FORBIDDEN, "missing or wrong " + CSRF_HEADER + " header (the token from GET "
                            + "/api/session); reload the page");
                }
            }
            return route(r);
        } catch (IOException e) {
            return Answer.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "could not read or write a file: "
                    + e.getMessage());
        } catch (IllegalArgumentException e) {
            return Answer.error(BAD_REQUEST, "bad request: " + e.getMessage()); // a malformed %-escape in the path
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "interrupted");
        }
    }

    private Answer route(ApiRequest r) throws IOException, InterruptedException {
        String path = r.path();
        HttpMethod m = r.method();
        switch (path) {
            case "/api/session":
                return only(m, HttpMethod.GET) ? session(r) : notAllowed("GET");
            case "/api/login":
                return only(m, HttpMethod.POST) ? login(r) : notAllowed("POST");
            case "/api/logout":
                return only(m, HttpMethod.POST) ? logout(r) : notAllowed("POST");
            case "/api/certificates":
                return only(m, HttpMethod.GET) ? Answer.json(OK, certificates()) : notAllowed("GET");
            case "/api/streams":
                return only(m, HttpMethod.GET) ? Answer.json(OK, StreamsJson.of(tables.get().get(0).config(),
                        relays.get())) : notAllowed("GET");
            case "/api/fleet":
                return only(m, HttpMethod.GET) ? Answer.json(OK, FleetJson.of(fleet.get())) : notAllowed("GET");
            case "/api/reload":
                return only(m, HttpMethod.POST) ? reload() : notAllowed("POST");
            default:
                break;
        }
        if (path.startsWith(CERTIFICATES) && path.endsWith("/renew")
                && path.length() > CERTIFICATES.length() + "/renew".length()) {
            return only(m, HttpMethod.POST) ? renew(decode(path.substring(CERTIFICATES.length(),
                    path.length() - "/renew".length()))) : notAllowed("POST");
        }
        if (!path.equals("/api/config") && !path.equals("/api/backup") && !path.equals("/api/restore")
                && !path.equals(SITES) && !path.startsWith(SITES + "/")) {
            return Answer.error(NOT_FOUND, "no such admin resource: " + path);
        }
        if (config.path() == null) {
            return Answer.error(CONFLICT, "this Usher was not started from a config file, so there is none to show "
                    + "or edit");
        }
        switch (path) {
            case "/api/config":
                return only(m, HttpMethod.GET) ? configText() : notAllowed("GET");
            case "/api/backup":
                return only(m, HttpMethod.GET) ? backup() : notAllowed("GET");
            case "/api/restore":
                return only(m, HttpMethod.POST) ? restore(r) : notAllowed("POST");
            case SITES:
                if (m.equals(HttpMethod.GET)) {
                    return sites();
                }
                return only(m, HttpMethod.POST) ? save(r, null) : notAllowed("GET, POST");
            default:
                break;
        }
        String name = decode(path.substring(SITES.length() + 1));
        if (m.equals(HttpMethod.GET)) {
            return site(name);
        }
        if (m.equals(HttpMethod.PUT)) {
            return save(r, name);
        }
        if (m.equals(HttpMethod.DELETE)) {
            return delete(r, name);
        }
        return notAllowed("GET, PUT, DELETE");
    }

    private Answer session(ApiRequest r) {
        boolean required = secret.required();
        String csrf = required ? (r.session() == null ? null : r.session().csrf) : sessions.openCsrf();
        boolean loggedIn = !required || r.session() != null;
        Path file = loggedIn ? config.path() : null; // where the file lives is no stranger's business
        return Answer.json(OK, "{\"login_required\":" + required + ",\"logged_in\":" + loggedIn
                + ",\"csrf\":" + (csrf == null ? "null" : Json.string(csrf))
                + ",\"config_file\":" + (file == null ? "null" : Json.string(file.toAbsolutePath().toString())) + "}");
    }

    private Answer login(ApiRequest r) throws InterruptedException {
        if (!secret.required()) {
            return Answer.error(CONFLICT, "no password is configured: this admin endpoint is open on loopback only");
        }
        if (!sessions.tryAttempt(r.client())) {
            return Answer.error(HttpResponseStatus.TOO_MANY_REQUESTS, "too many wrong passwords from your address; "
                    + "wait a few minutes");
        }
        Object password = null;
        try {
            if (JsonReader.parse(body(r)) instanceof Map<?, ?> map) {
                password = map.get("password");
            }
        } catch (JsonReader.BadJson e) {
            return Answer.error(BAD_REQUEST, e.getMessage());
        }
        if (!(password instanceof String text) || !secret.verify(text)) {
            return Answer.error(UNAUTHORIZED, "wrong password");
        }
        sessions.succeeded(r.client());
        sessions.end(r.session());
        Sessions.Session s = sessions.start();
        return Answer.json(OK, "{\"csrf\":" + Json.string(s.csrf) + "}")
                .with("Set-Cookie", Sessions.COOKIE + "=" + s.id + "; HttpOnly; SameSite=Strict; Path=/"
                        + (r.secure() ? "; Secure" : ""));
    }

    private Answer logout(ApiRequest r) {
        sessions.end(r.session());
        return Answer.empty(HttpResponseStatus.NO_CONTENT).with("Set-Cookie", Sessions.COOKIE
                + "=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0" + (r.secure() ? "; Secure" : ""));
    }

    private Answer sites() throws IOException {
        ConfigFile.Snapshot file = config.read();
        List<ConfigEditor.Entry> entries;
        try {
            entries = ConfigEditor.sites(file.text());
        } catch (ConfigEditor.EditException e) {
            return unreadable(file, e);
        }
        Map<String, Long> counts = recent.lastMinute();
        CertManager manager = certificates.get();
        Map<String, CertificateStatus> certs = manager == null ? Map.of() : manager.statusBySite();
        StringBuilder out = new StringBuilder("{\"version\":").append(Json.string(file.version()))
                .append(",\"sites\":[");
        for (int i = 0; i < entries.size(); i++) {
            ConfigEditor.Entry e = entries.get(i);
            out.append(i == 0 ? "" : ",");
            SiteStatusJson.write(out, e, running(e.name()), certs.get(e.name()), counts.getOrDefault(e.name(), 0L));
        }
        boolean first = entries.isEmpty();
        for (LabelSite site : tables.get().get(0).config().labelSites()) {
            out.append(first ? "" : ",");
            first = false;
            SiteStatusJson.write(out, site, running(site.name()), certs.get(site.name()),
                    counts.getOrDefault(site.name(), 0L));
        }
        return Answer.json(OK, out.append("]}").toString()).tagged(file.version());
    }

    /** The running route of a site: its HTTPS route when it has one (the plain one only redirects), or null. */
    private Route running(String name) {
        for (RouteTable table : tables.get()) {
            Route route = table.lookup(name.startsWith("*.") ? "x" + name.substring(1) : name);
            if (route != null && route.site().name().equals(name)) {
                return route;
            }
        }
        return null;
    }

    private Answer site(String name) throws IOException {
        ConfigFile.Snapshot file = config.read();
        try {
            return ConfigEditor.site(file.text(), name)
                    .map(e -> Answer.json(OK, "{\"version\":" + Json.string(file.version()) + ",\"site\":"
                            + SiteFormJson.write(e.form()) + ",\"yaml\":" + Json.string(e.yaml()) + ",\"kind\":"
                            + Json.string(e.kind()) + ",\"editable\":" + e.editable() + "}").tagged(file.version()))
                    .orElseGet(() -> Answer.error(NOT_FOUND, "no site named " + name));
        } catch (ConfigEditor.EditException e) {
            return unreadable(file, e);
        }
    }

    /** POST (add, {@code oldName} null) or PUT (change or rename). */
    private Answer save(ApiRequest r, String oldName) throws IOException {
        String ifMatch = ConfigFile.unquote(r.headers().get("If-Match"));
        if (ifMatch == null) {
            return preconditionRequired();
        }
        SiteForm form;
        try {
            SiteFormJson.Parsed parsed = SiteFormJson.read(body(r));
            if (!parsed.errors().isEmpty()) {
                return Answer.json(UNPROCESSABLE_ENTITY, "{\"error\":\"the site has errors; nothing was saved\","
                        + "\"errors\":" + FieldErrors.json(parsed.errors()) + "}");
            }
            form = parsed.form();
        } catch (JsonReader.BadJson e) {
            return Answer.error(BAD_REQUEST, e.getMessage());
        }
        AtomicInteger keyColumn = new AtomicInteger(-1);
        ConfigFile.Outcome outcome = config.write(ifMatch, bytes -> {
            String next = ConfigEditor.put(new String(bytes, StandardCharsets.UTF_8), oldName, form);
            ConfigEditor.site(next, form.name()).ifPresent(e -> keyColumn.set(e.keyColumn()));
            return next.getBytes(StandardCharsets.UTF_8);
        }, null);
        return written(outcome, oldName == null ? CREATED : OK, form, keyColumn.get());
    }

    private Answer delete(ApiRequest r, String name) throws IOException {
        String ifMatch = ConfigFile.unquote(r.headers().get("If-Match"));
        if (ifMatch == null) {
            return preconditionRequired();
        }
        ConfigFile.Outcome outcome = config.write(ifMatch, bytes -> ConfigEditor.delete(
                new String(bytes, StandardCharsets.UTF_8), name).getBytes(StandardCharsets.UTF_8), null);
        return written(outcome, OK, null, -1);
    }

    private Answer written(ConfigFile.Outcome outcome, HttpResponseStatus ok, SiteForm form, int keyColumn) {
        return switch (outcome) {
            case ConfigFile.Written w -> Answer.json(ok, "{\"version\":" + Json.string(w.version())
                    + (form == null ? "" : ",\"site\":" + SiteFormJson.write(form))
                    + ",\"changes\":" + Json.string(w.reload().changes().summary()) + "}").tagged(w.version());
            case ConfigFile.Stale s -> Answer.json(PRECONDITION_FAILED, "{\"error\":\"the config file changed since "
                    + "you loaded it\",\"version\":" + Json.string(s.current()) + "}").tagged(s.current());
            case ConfigFile.Invalid i -> Answer.json(UNPROCESSABLE_ENTITY, "{\"error\":\"not saved: the config "
                    + "would be invalid; the file is unchanged\",\"errors\":" + FieldErrors.json(i.errors(), form,
                    keyColumn) + "}");
            case ConfigFile.ReadOnly ro -> Answer.error(CONFLICT, "not saved: " + ro.why());
            case ConfigFile.Refused f -> Answer.error(switch (f.why().kind()) {
                case NOT_FOUND -> NOT_FOUND;
                case EXISTS -> CONFLICT;
                case REFUSED -> UNPROCESSABLE_ENTITY;
            }, f.why().getMessage());
        };
    }

    private String certificates() {
        CertManager manager = certificates.get();
        return manager == null ? "[]" : Json.certificates(manager.status());
    }

    private Answer renew(String name) {
        CertManager manager = certificates.get();
        if (manager == null) {
            return Answer.error(NOT_FOUND, "Usher serves no HTTPS site");
        }
        CompletableFuture<?> renewing = manager.renew(name);
        if (renewing.isCompletedExceptionally()) {
            String why = renewing.handle((v, e) -> e.getMessage()).join();
            return Answer.error(NOT_FOUND, why);
        }
        return Answer.json(HttpResponseStatus.ACCEPTED, "{\"status\":\"renewing\",\"name\":" + Json.string(name)
                + "}");
    }

    private Answer reload() {
        Reloader reloads = reloader.get();
        if (reloads == null) {
            return Answer.error(CONFLICT, "this Usher was not started from a config file, so there is nothing to "
                    + "reload");
        }
        ReloadResult result = reloads.reload("admin API");
        if (result.ok()) {
            return Answer.json(OK, "{\"changes\":" + Json.string(result.changes().summary()) + ",\"took_ms\":"
                    + result.took().toMillis() + "}");
        }
        return Answer.json(UNPROCESSABLE_ENTITY, "{\"error\":\"the config file has errors; the previous config keeps "
                + "serving\",\"errors\":" + FieldErrors.json(result.errors(), null, -1) + "}");
    }

    private Answer configText() throws IOException {
        ConfigFile.Snapshot file = config.read();
        return Answer.json(OK, "{\"version\":" + Json.string(file.version()) + ",\"path\":"
                + Json.string(file.path().toString()) + ",\"text\":" + Json.string(file.text()) + "}")
                .tagged(file.version());
    }

    private Answer backup() throws IOException {
        ConfigFile.Snapshot file = config.read();
        Path archive = Backups.createFile(file.bytes(), dataDir());
        String name = "usher-backup-" + hostName() + "-" + STAMP.format(ZonedDateTime.now(ZoneOffset.UTC))
                + ".tar.gz";
        return new Answer(OK, "application/gzip", new byte[0], Map.of(), archive).tagged(file.version())
                .with("Content-Disposition", "attachment; filename=\"" + name + "\"");
    }

    private Answer restore(ApiRequest r) throws IOException {
        String ifMatch = ConfigFile.unquote(r.headers().get("If-Match"));
        if (ifMatch == null) {
            return preconditionRequired();
        }
        Backups.Contents contents;
        try {
            contents = Backups.read(r.body());
        } catch (TarGz.BadArchive e) {
            return Answer.json(UNPROCESSABLE_ENTITY, "{\"error\":" + Json.string("not restored: " + e.getMessage())
                    + ",\"errors\":[]}");
        }
        // The archive's config names where its data goes; were that followed, an archive could write any file
        // Usher may write (data: /etc/cron.d). Data is written only into the running data directory.
        Path running = dataDir().toAbsolutePath().normalize();
        try {
            Path wanted = ConfigLoader.parse(contents.config(), config.path()).dataDir().toAbsolutePath().normalize();
            if (!wanted.equals(running)) {
                return Answer.json(UNPROCESSABLE_ENTITY, "{\"error\":" + Json.string("not restored: the backup's "
                        + "config keeps its data in " + wanted + ", this Usher in " + running + "; a restore writes "
                        + "only into the running data directory (change data: by hand first, and reload)")
                        + ",\"errors\":[]}");
            }
        } catch (ConfigException e) {
            // an invalid config: the write below refuses it with its errors
        }
        ConfigFile.Outcome outcome = config.write(ifMatch, current -> contents.config(),
                () -> Backups.restoreData(contents.data(), running));
        CertManager manager = certificates.get();
        if (outcome instanceof ConfigFile.Written && manager != null) {
            manager.adoptStored(); // sites that were running already keep their names: serve the restored copies
        }
        return written(outcome, OK, null, -1);
    }

    private Path dataDir() {
        return tables.get().get(0).config().dataDir();
    }

    private Answer unreadable(ConfigFile.Snapshot file, ConfigEditor.EditException e) {
        return Answer.json(UNPROCESSABLE_ENTITY, "{\"error\":" + Json.string(e.getMessage()) + ",\"errors\":[],"
                + "\"version\":" + Json.string(file.version()) + "}").tagged(file.version());
    }

    private static Answer preconditionRequired() {
        return Answer.error(PRECONDITION_REQUIRED, "send If-Match: \"<version>\" with the version of the config "
                + "file you loaded (GET /api/sites gives it)");
    }

    private static boolean only(HttpMethod actual, HttpMethod wanted) {
        return actual.equals(wanted);
    }

    private static Answer notAllowed(String allowed) {
        return Answer.error(METHOD_NOT_ALLOWED, "use " + allowed).with("Allow", allowed);
    }

    private static String body(ApiRequest r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static String decode(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9.-]", "_");
        } catch (IOException e) {
            return "host";
        }
    }
}
