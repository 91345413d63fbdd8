package dev.usher.migrate;

import dev.usher.migrate.Caddyfile.Directive;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Caddyfile site block as Usher sites (one per address). The handler Caddy would run is chosen in Caddy's own
 * directive order ({@code redir}, then {@code respond}, then {@code reverse_proxy}); a block with none answers an
 * empty 200, as Caddy does. Directives limited by a request matcher are listed, since Usher applies a site's options
 * to every request; a login limited that way, or one that cannot be carried over, makes the site a comment.
 */
final class CaddySite {
    private static final Pattern BCRYPT = Pattern.compile("^\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}$");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{[^}]*}");
    private static final Map<String, String> PLACEHOLDERS = Map.ofEntries(Map.entry("{uri}", "{uri}"),
            Map.entry("{path}", "{path}"), Map.entry("{query}", "{query}"), Map.entry("{host}", "{host}"),
            Map.entry("{scheme}", "{scheme}"), Map.entry("{http.request.uri}", "{uri}"),
            Map.entry("{http.request.uri.path}", "{path}"), Map.entry("{http.request.uri.query}", "{query}"),
            Map.entry("{http.request.host}", "{host}"), Map.entry("{http.request.scheme}", "{scheme}"));
    /** Directives that take no request matcher: a first argument starting with / is a file. */
    private static final Set<String> NO_MATCHER = Set.of("redir", "tls", "log", "bind", "import");
    /** Directives that guard a site. */
    private static final Set<String> GUARDS = Set.of("basicauth", "basic_auth", "forward_auth");
    /** Handlers Usher has no counterpart for; a block whose handler is one of these is not carried over. */
    private static final Set<String> OTHER_HANDLERS = Set.of("file_server", "php_fastcgi", "abort", "error",
            "templates", "acme_server", "metrics", "copy_response", "invoke", "handle_errors");

    private final Caddyfile.SiteBlock block;
    private final CaddyGlobals globals;
    private final Conversion.Builder out;
    private final Origin origin;

    private final List<String> upstreams = new ArrayList<>();
    private String policy;
    private SiteEntry.Health health;
    private SiteEntry.Redirect redirect;
    private SiteEntry.Respond respond;
    private String otherHandler;
    private final Map<String, HeaderEdit> headers = new LinkedHashMap<>();
    private final Map<String, HeaderEdit> requestHeaders = new LinkedHashMap<>();
    private final Map<String, String> users = new LinkedHashMap<>();
    private SiteEntry.Tls tls = SiteEntry.Tls.AUTO;
    private Boolean accessLog;
    private String blocked;
    private boolean anyProxy;

    CaddySite(Caddyfile.SiteBlock block, CaddyGlobals globals, Conversion.Builder out) {
        this.block = block;
        this.globals = globals;
        this.out = out;
        this.origin = new Origin(CaddyImport.FORMAT, block.file(), "line " + block.line());
    }

    void convert() {
        for (Directive d : flatten(block.directives())) {
            directive(d);
        }
        if (redirect == null && respond == null && upstreams.isEmpty()) {
            if (otherHandler != null || anyProxy) {
                out.notConverted(origin, "site " + String.join(", ", block.addresses()), otherHandler != null
                        ? "its handler " + otherHandler + " has no counterpart in Usher" : "no backend Usher can use");
                return;
            }
            respond = new SiteEntry.Respond(200, null); // Caddy answers an empty 200 when nothing handles a request
        }
        if (redirect != null && !users.isEmpty()) {
            out.changed(origin, "basic_auth", "Caddy redirects before it asks for a login, so the redirect site "
                    + "needs none");
            users.clear();
        }
        for (String address : block.addresses()) {
            site(address);
        }
    }

    /** Caddy's {@code handle} and {@code route} without a matcher apply to every request: their insides count. */
    private List<Directive> flatten(List<Directive> directives) {
        List<Directive> flat = new ArrayList<>();
        for (Directive d : directives) {
            if ((d.name().equals("handle") || d.name().equals("route")) && d.args().isEmpty()) {
                flat.addAll(flatten(d.block()));
            } else {
                flat.add(d);
            }
        }
        return flat;
    }

    private void directive(Directive d) {
        Origin at = new Origin(CaddyImport.FORMAT, d.file(), d.where());
        String what = d.name() + (d.args().isEmpty() ? "" : " " + String.join(" ", d.args()));
        if (d.name().startsWith("@")) {
            return; // a named matcher: reported where it is used
        }
        List<String> args = d.args();
        if (!args.isEmpty() && args.get(0).equals("*")) {
            args = args.subList(1, args.size());
        } else if (!args.isEmpty() && (args.get(0).startsWith("@") || args.get(0).startsWith("/"))
                && !NO_MATCHER.contains(d.name()) || d.name().equals("redir") && args.size() >= 2
                && (args.get(0).startsWith("@") || args.get(0).startsWith("/") && args.get(1).startsWith("/"))) {
            String why = "Usher applies a site's options to every request (no request matchers or paths)";
            if (GUARDS.contains(d.name())) {
                blocked = "a login on part of the site cannot be carried over";
                out.notConverted(at, what, why + "; the site is written as a comment rather than served without the "
                        + "login");
            } else {
                out.notConverted(at, what, why);
            }
            return;
        }
        switch (d.name()) {
            case "reverse_proxy" -> reverseProxy(d, args, at);
            case "redir" -> redir(args, at, what);
            case "respond" -> respond(d, args, at, what);
            case "basicauth", "basic_auth" -> basicAuth(d, args, at, what);
            case "forward_auth" -> {
                blocked = "forward_auth cannot be carried over";
                out.notConverted(at, what, "Usher has no forward authentication; the site is written as a comment");
            }
            case "header" -> header(d, args, at, what, headers, true);
            case "request_header" -> header(d, args, at, what, requestHeaders, false);
            case "encode" -> {
                if (!d.block().isEmpty()) {
                    out.changed(at, what, "Usher compresses with its own settings (zstd or gzip, text types over "
                            + "1 KiB)");
                }
            }
            case "tls" -> tls(d, args, at);
            case "log" -> {
                accessLog = true;
                if (!d.block().isEmpty() || !args.isEmpty()) {
                    out.changed(at, what, "Usher logs the site's requests as JSON lines to standard output, or to "
                            + "the top-level access_log: file");
                }
            }
            case "handle", "route", "handle_path" -> out.notConverted(at, what + " { ... }", "usher import converts "
                    + "routing by host name only (Usher has paths:; add it by hand)");
            default -> {
                if (OTHER_HANDLERS.contains(d.name()) && otherHandler == null) {
                    otherHandler = d.name();
                }
                out.notConverted(at, what, "no counterpart in Usher");
            }
        }
    }

    private void reverseProxy(Directive d, List<String> args, Origin at) {
        anyProxy = true;
        if (!upstreams.isEmpty()) {
            out.notConverted(at, "a second reverse_proxy", "Usher has one set of backends per site");
            return;
        }
        List<String> to = new ArrayList<>(args);
        for (Directive sub : d.block()) {
            String subWhat = "reverse_proxy " + sub.name() + " " + String.join(" ", sub.args());
            switch (sub.name()) {
                case "to" -> to.addAll(sub.args());
                case "lb_policy" -> lbPolicy(sub, at);
                case "health_uri", "health_path" -> health = new SiteEntry.Health(sub.args().get(0),
                        health == null ? null : health.interval(), health == null ? null : health.timeout());
                case "health_interval" -> health = new SiteEntry.Health(health == null ? null : health.path(),
                        sub.args().get(0), health == null ? null : health.timeout());
                case "health_timeout" -> health = new SiteEntry.Health(health == null ? null : health.path(),
                        health == null ? null : health.interval(), sub.args().get(0));
                case "header_up" -> header(sub, sub.args(), at, subWhat, requestHeaders, false);
                case "header_down" -> header(sub, sub.args(), at, subWhat, headers, true);
                case "transport" -> {
                    boolean tlsTransport = sub.block().stream().anyMatch(t -> t.name().startsWith("tls"));
                    if (tlsTransport || !sub.args().isEmpty() && !sub.args().get(0).equals("http")) {
                        blocked = "its backend is spoken to over " + (tlsTransport ? "HTTPS" : sub.args().get(0));
                        out.notConverted(at, subWhat, "Usher speaks plain HTTP/1.1 to backends; the site is "
                                + "written as a comment");
                    } else {
                        out.notConverted(at, subWhat, "Usher's backend connections have their own settings "
                                + "(timeouts: in the site)");
                    }
                }
                default -> out.notConverted(at, subWhat, "no counterpart in Usher");
            }
        }
        if (health != null && health.path() == null) {
            health = null; // an interval without a path checks nothing in Usher
        }
        for (String u : to) {
            BackendText.Backend backend = BackendText.parse(u, "localhost");
            if (backend.ok()) {
                upstreams.add(backend.address());
            } else {
                out.notConverted(at, "reverse_proxy " + u, backend.problem());
            }
        }
        if (upstreams.size() > 1 && policy == null && d.block().stream().noneMatch(s -> s.name().equals("lb_policy"))) {
            out.changed(at, "reverse_proxy to " + upstreams.size() + " backends", "Caddy picks one at random; Usher "
                    + "takes them in turn (policy: round_robin)");
        }
    }

    private void lbPolicy(Directive sub, Origin at) {
        String p = sub.args().isEmpty() ? "" : sub.args().get(0);
        switch (p) {
            case "round_robin", "random", "random_choose" -> policy = null;
            case "least_conn", "first" -> policy = p;
            case "ip_hash", "client_ip_hash" -> policy = "ip_hash";
            default -> out.notConverted(at, "lb_policy " + p, "Usher has round_robin, least_conn, first and ip_hash");
        }
        if (p.startsWith("random")) {
            out.changed(at, "lb_policy " + p, "Usher takes the backends in turn (round_robin)");
        }
    }

    private void redir(List<String> args, Origin at, String what) {
        if (args.isEmpty()) {
            out.notConverted(at, what, "no target");
            return;
        }
        String target = args.get(0);
        String code = args.size() > 1 ? args.get(1) : "302";
        int status = switch (code) {
            case "permanent" -> 301;
            case "temporary" -> 302;
            default -> code.matches("30[1-8]") ? Integer.parseInt(code) : -1;
        };
        String converted = placeholders(target);
        if (status < 0 || converted == null) {
            otherHandler = "redir " + String.join(" ", args);
            out.notConverted(at, what, status < 0 ? "status " + code + " is not a redirect Usher gives (301, 302, "
                    + "303, 307 or 308)" : "it uses a placeholder Usher does not have ({uri}, {path}, {query}, {host},"
                    + " {scheme} are the ones it has)");
            return;
        }
        if (redirect == null) {
            redirect = new SiteEntry.Redirect(converted, status);
        }
    }

    /** Caddy's placeholders in a redirect target as Usher's, or null when one has no counterpart. */
    private static String placeholders(String target) {
        Matcher m = PLACEHOLDER.matcher(target);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String usher = PLACEHOLDERS.get(m.group());
            if (usher == null) {
                return null;
            }
            m.appendReplacement(b, Matcher.quoteReplacement(usher));
        }
        m.appendTail(b);
        return b.toString();
    }

    private void respond(Directive d, List<String> args, Origin at, String what) {
        String body = null;
        int status = 200;
        if (!args.isEmpty()) {
            if (args.get(0).matches("\\d{3}")) {
                status = Integer.parseInt(args.get(0));
            } else {
                body = args.get(0);
                if (args.size() > 1 && args.get(1).matches("\\d{3}")) {
                    status = Integer.parseInt(args.get(1));
                }
            }
        }
        for (Directive sub : d.block()) {
            if (sub.name().equals("body") && !sub.args().isEmpty()) {
                body = sub.args().get(0);
            } else {
                out.notConverted(at, "respond " + sub.name(), "no counterpart in Usher");
            }
        }
        if (respond == null) {
            respond = new SiteEntry.Respond(status, body);
        } else {
            out.notConverted(at, what, "a second respond");
        }
    }

    private void basicAuth(Directive d, List<String> args, Origin at, String what) {
        String algorithm = args.isEmpty() ? "bcrypt" : args.get(0);
        if (!algorithm.equals("bcrypt")) {
            blocked = "its " + algorithm + " passwords cannot be carried over";
            out.notConverted(at, what, "Usher checks bcrypt hashes only; the site is written as a comment");
            return;
        }
        for (Directive user : d.block()) {
            String hash = user.args().isEmpty() ? "" : user.args().get(0);
            if (!BCRYPT.matcher(hash).matches()) {
                try {
                    hash = new String(Base64.getDecoder().decode(hash), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    hash = "";
                }
            }
            if (BCRYPT.matcher(hash).matches()) {
                users.put(user.name(), hash);
            } else {
                out.notConverted(at, what + " user " + user.name(), "its hash is not bcrypt");
            }
        }
        if (users.isEmpty()) {
            blocked = "none of its basic_auth users could be carried over";
            out.notConverted(at, what, "no user with a bcrypt hash: the site is written as a comment");
        }
    }

    /**
     * {@code header [[+|-|?|>]Field [value|find replace]]} and its block form, into {@code edits}; a later edit of
     * the same field replaces an earlier one (Usher refuses a field set twice).
     */
    private void header(Directive d, List<String> args, Origin at, String what, Map<String, HeaderEdit> edits,
                        boolean response) {
        if (args.isEmpty()) {
            if (d.block().stream().anyMatch(s -> s.name().equals("match"))) {
                out.notConverted(at, what + " { match ... }", "Usher sets headers on every response");
                return;
            }
            for (Directive sub : d.block()) {
                if (!sub.name().equals("defer")) {
                    List<String> line = new ArrayList<>(List.of(sub.name()));
                    line.addAll(sub.args());
                    header(sub, line, at, what + " " + String.join(" ", line), edits, response);
                }
            }
            return;
        }
        String field = args.get(0);
        if (field.endsWith(":")) {
            field = field.substring(0, field.length() - 1);
        }
        if (field.startsWith(">")) {
            field = field.substring(1);
        }
        if (args.size() > 2) {
            out.notConverted(at, what, "a find-and-replace in a header value has no counterpart in Usher");
            return;
        }
        if (field.startsWith("?")) {
            out.notConverted(at, what, "Usher has no set-if-missing header edit");
            return;
        }
        if (field.startsWith("-")) {
            String name = field.substring(1);
            edits.put(name.toLowerCase(Locale.ROOT), HeaderEdit.remove(name));
            return;
        }
        String value = args.size() > 1 ? args.get(1) : "";
        if (PLACEHOLDER.matcher(value).find()) {
            out.notConverted(at, what, "Usher's header values are fixed text (no placeholders)");
            return;
        }
        if (field.startsWith("+")) {
            edits.put(field.toLowerCase(Locale.ROOT) + "#" + edits.size(), HeaderEdit.add(field.substring(1), value));
        } else {
            edits.put(field.toLowerCase(Locale.ROOT), HeaderEdit.set(field, value));
        }
    }

    private void tls(Directive d, List<String> args, Origin at) {
        if (args.size() == 1 && args.get(0).equals("internal")) {
            tls = SiteEntry.Tls.INTERNAL;
        } else if (args.size() == 1 && args.get(0).contains("@")) {
            if (out.globals().email() == null) {
                out.globals(out.globals().withEmail(args.get(0)));
            }
        } else if (args.size() == 2) {
            CaddyImport.userFiles(args.get(0), args.get(1), block, at, out);
        } else if (!args.isEmpty()) {
            out.notConverted(at, "tls " + String.join(" ", args), "no counterpart in Usher");
        }
        for (Directive sub : d.block()) {
            if (sub.name().equals("issuer") && !sub.args().isEmpty() && sub.args().get(0).equals("internal")) {
                tls = SiteEntry.Tls.INTERNAL;
                for (Directive option : sub.block()) {
                    out.notConverted(at, "tls issuer internal " + option.name() + (option.args().isEmpty() ? ""
                            : " " + String.join(" ", option.args())), "Usher's local CA has its own settings "
                            + "(7-day certificates, renewed by themselves)");
                }
            } else {
                out.notConverted(at, "tls " + sub.name() + " " + String.join(" ", sub.args()), sub.name()
                        .equals("dns") ? "usher import does not convert DNS providers (set acme.dns by hand)" : "Usher's TLS settings are its own");
            }
        }
    }

    /** The site for one address, or a listed reason why there is none. */
    private void site(String address) {
        CaddyAddress a = CaddyAddress.parse(address, globals);
        if (a.problem() != null) {
            out.notConverted(origin, "site address " + address, a.problem());
            return;
        }
        HostText.Host host = HostText.parse(a.host());
        SiteEntry.Builder site = SiteEntry.builder(host.ascii(), origin).writtenAs(host.writtenAs())
                .plainHttp(a.plainHttp());
        if (redirect != null) {
            site.redirect(redirect.to(), redirect.status());
        } else if (respond != null) {
            site.respond(respond.status(), respond.body());
        } else {
            site.proxy(upstreams).policy(policy).health(health);
            requestHeaders.values().forEach(site::requestHeader);
        }
        headers.values().forEach(site::header);
        users.forEach(site::user);
        site.accessLog(accessLog);
        if (!a.plainHttp()) {
            site.tls(globals.localCerts ? SiteEntry.Tls.INTERNAL : tls);
        }
        if (blocked != null) {
            site.commentedOut(blocked);
        }
        out.site(site.build());
    }
}
