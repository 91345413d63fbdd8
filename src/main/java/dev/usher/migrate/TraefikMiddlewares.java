package dev.usher.migrate;

import dev.usher.config.Cidr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Traefik's HTTP middlewares as a site's options: {@code redirectScheme}, {@code headers}, {@code basicAuth},
 * {@code ipAllowList} ({@code ipWhiteList} in v2), {@code rateLimit}, {@code compress}, {@code chain}. A middleware
 * that guards the site (an authentication, an address list) and cannot be carried over exactly makes the site a
 * comment: an import never serves a site more openly than Traefik did.
 */
final class TraefikMiddlewares {
    private static final Pattern BCRYPT = Pattern.compile("^\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}$");
    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|s|m|h))+");
    /** Middlewares that only change the path, which Usher forwards as it came. */
    private static final Set<String> PATHS = Set.of("stripprefix", "stripprefixregex", "addprefix", "replacepath",
            "replacepathregex");
    /** Middlewares that guard a site: one that cannot be carried over keeps the site out. */
    private static final Set<String> GUARDS = Set.of("basicauth", "digestauth", "forwardauth", "ipallowlist",
            "ipwhitelist");

    /** What the middlewares of one router come to. */
    static final class Applied {
        final Map<String, HeaderEdit> headers = new LinkedHashMap<>();
        final Map<String, HeaderEdit> requestHeaders = new LinkedHashMap<>();
        final Map<String, String> users = new LinkedHashMap<>();
        final List<String> allow = new ArrayList<>();
        SiteEntry.RateLimitSpec rateLimit;
        boolean redirectsToHttps;
        boolean removeAuthorization;
        /** Why the site must not be served, or null. */
        String blocked;

        void applyTo(SiteEntry.Builder site) {
            headers.values().forEach(site::header);
            requestHeaders.values().forEach(site::requestHeader);
            users.forEach(site::user);
            allow.forEach(site::allow);
            if (rateLimit != null) {
                site.rateLimit(rateLimit);
            }
            if (removeAuthorization && !users.isEmpty()) {
                site.requestHeader(HeaderEdit.remove("Authorization"));
            }
        }
    }

    private final Map<String, Object> definitions;
    private final Conversion.Builder out;

    TraefikMiddlewares(Map<String, Object> definitions, Conversion.Builder out) {
        this.definitions = definitions;
        this.out = out;
    }

    /** The middlewares a router names, in order, applied. */
    Applied apply(List<String> names, Origin origin) {
        Applied applied = new Applied();
        for (String name : names) {
            apply(name, origin, applied, 0);
        }
        return applied;
    }

    private void apply(String reference, Origin origin, Applied applied, int depth) {
        String name = TraefikImport.withoutProvider(reference);
        Object def = definitions.get(name);
        if (def == null) {
            for (Map.Entry<String, Object> e : definitions.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    def = e.getValue();
                }
            }
        }
        if (def == null || depth > 10) {
            applied.blocked = "its middleware \"" + reference + "\" is not defined here (it may guard the site)";
            out.notConverted(origin, "middleware " + reference, "not defined in what was read; the site is written "
                    + "as a comment, since the middleware may be an authentication");
            return;
        }
        for (Map.Entry<String, Object> kind : Tree.asMap(def).entrySet()) {
            String type = kind.getKey().toLowerCase(Locale.ROOT);
            Object cfg = kind.getValue();
            String what = "middleware " + name + " (" + kind.getKey() + ")";
            switch (type) {
                case "redirectscheme" -> {
                    if ("https".equalsIgnoreCase(Tree.string(cfg, "scheme"))) {
                        applied.redirectsToHttps = true;
                    } else {
                        out.notConverted(origin, what, "only a redirect to https is carried over (Usher does it for "
                                + "every HTTPS site)");
                    }
                }
                case "headers" -> headers(cfg, origin, what, applied);
                case "basicauth" -> basicAuth(cfg, origin, what, applied);
                case "ipallowlist", "ipwhitelist" -> allowList(cfg, origin, what, applied);
                case "ratelimit" -> rateLimit(cfg, origin, what, applied);
                case "compress" -> {
                    // Usher compresses by default
                }
                case "chain" -> {
                    for (String inner : Tree.strings(cfg, "middlewares")) {
                        apply(inner, origin, applied, depth + 1);
                    }
                }
                default -> {
                    if (GUARDS.contains(type)) {
                        applied.blocked = what + " cannot be carried over";
                        out.notConverted(origin, what, "Usher has no such authentication; the site is written as a "
                                + "comment");
                    } else if (PATHS.contains(type)) {
                        out.notConverted(origin, what, "Usher forwards the request path as it came (no path "
                                + "rewriting)");
                    } else {
                        out.notConverted(origin, what, "Usher has no such middleware");
                    }
                }
            }
        }
    }

    private void headers(Object cfg, Origin origin, String what, Applied applied) {
        Tree.map(cfg, "customResponseHeaders").forEach((k, v) -> applied.headers.put(k.toLowerCase(Locale.ROOT),
                Tree.text(v).isEmpty() ? HeaderEdit.remove(k) : HeaderEdit.set(k, Tree.text(v))));
        Tree.map(cfg, "customRequestHeaders").forEach((k, v) -> applied.requestHeaders.put(k.toLowerCase(Locale.ROOT),
                Tree.text(v).isEmpty() ? HeaderEdit.remove(k) : HeaderEdit.set(k, Tree.text(v))));
        String sts = Tree.string(cfg, "stsSeconds");
        if (sts != null && !sts.equals("0")) {
            applied.headers.put("strict-transport-security", HeaderEdit.set("Strict-Transport-Security",
                    "max-age=" + sts + (Tree.flag(cfg, "stsIncludeSubdomains") ? "; includeSubDomains" : "")
                            + (Tree.flag(cfg, "stsPreload") ? "; preload" : "")));
        }
        if (Tree.string(cfg, "customFrameOptionsValue") != null) {
            applied.headers.put("x-frame-options", HeaderEdit.set("X-Frame-Options",
                    Tree.string(cfg, "customFrameOptionsValue")));
        } else if (Tree.flag(cfg, "frameDeny")) {
            applied.headers.put("x-frame-options", HeaderEdit.set("X-Frame-Options", "DENY"));
        }
        if (Tree.flag(cfg, "contentTypeNosniff")) {
            applied.headers.put("x-content-type-options", HeaderEdit.set("X-Content-Type-Options", "nosniff"));
        }
        if (Tree.flag(cfg, "browserXssFilter")) {
            applied.headers.put("x-xss-protection", HeaderEdit.set("X-XSS-Protection", "1; mode=block"));
        }
        for (String[] plain : new String[][] {{"referrerPolicy", "Referrer-Policy"},
                {"contentSecurityPolicy", "Content-Security-Policy"}, {"permissionsPolicy", "Permissions-Policy"}}) {
            String v = Tree.string(cfg, plain[0]);
            if (v != null) {
                applied.headers.put(plain[1].toLowerCase(Locale.ROOT), HeaderEdit.set(plain[1], v));
            }
        }
        Set<String> done = Set.of("customresponseheaders", "customrequestheaders", "stsseconds",
                "stsincludesubdomains", "stspreload", "customframeoptionsvalue", "framedeny", "contenttypenosniff",
                "browserxssfilter", "referrerpolicy", "contentsecuritypolicy", "permissionspolicy", "sslredirect",
                "forcestsheader");
        for (String key : Tree.asMap(cfg).keySet()) {
            if (!done.contains(key.toLowerCase(Locale.ROOT))) {
                out.notConverted(origin, what + " " + key, "Usher has no such header option; set the header with "
                        + "headers: if it is a fixed one");
            }
        }
    }

    private void basicAuth(Object cfg, Origin origin, String what, Applied applied) {
        List<String> entries = new ArrayList<>(Tree.strings(cfg, "users"));
        String file = Tree.string(cfg, "usersFile");
        if (file != null) {
            try {
                SourceFiles.text(java.nio.file.Path.of(file)).lines().map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#")).forEach(entries::add);
            } catch (ImportException e) {
                out.notConverted(origin, what + " usersFile", e.getMessage());
            }
        }
        for (String entry : entries) {
            int colon = entry.indexOf(':');
            String user = colon < 0 ? entry : entry.substring(0, colon);
            String hash = colon < 0 ? "" : entry.substring(colon + 1);
            if (BCRYPT.matcher(hash).matches()) {
                applied.users.put(user, hash);
            } else {
                out.notConverted(origin, what + " user " + user, "its hash is not bcrypt ("
                        + (hash.startsWith("$apr1$") ? "Apache MD5" : hash.startsWith("{SHA}") ? "SHA-1" : "unknown")
                        + "), which Usher does not check; make a new one with usher hash-password");
            }
        }
        if (applied.users.isEmpty()) {
            applied.blocked = "none of its basic-auth users could be carried over";
            out.notConverted(origin, what, "no user with a bcrypt hash: the site is written as a comment rather than "
                    + "served without a login");
        }
        applied.removeAuthorization |= Tree.flag(cfg, "removeHeader");
    }

    private void allowList(Object cfg, Origin origin, String what, Applied applied) {
        List<String> ranges = Tree.strings(cfg, "sourceRange");
        for (String r : ranges) {
            try {
                Cidr.parse(r);
                applied.allow.add(r);
            } catch (IllegalArgumentException e) {
                applied.blocked = what + " has a range Usher cannot read";
                out.notConverted(origin, what + " " + r, e.getMessage() + "; the site is written as a comment");
            }
        }
        if (Tree.get(cfg, "ipStrategy") != null) {
            out.changed(origin, what + " ipStrategy", "Usher takes the client address from the peer, or from "
                    + "X-Forwarded-For of the networks in trusted_proxies: (set it by hand)");
        }
    }

    private void rateLimit(Object cfg, Origin origin, String what, Applied applied) {
        String average = Tree.string(cfg, "average");
        if (average == null || average.equals("0")) {
            return;
        }
        String period = Tree.string(cfg, "period");
        period = period == null ? "1s" : period.matches("\\d+") ? period + "s" : period;
        String burst = Tree.string(cfg, "burst");
        if (!average.matches("\\d+") || !DURATION.matcher(period).matches() || burst != null && !burst.matches("\\d+")) {
            out.notConverted(origin, what, "average " + average + " per " + period + " is not a limit Usher reads");
            return;
        }
        applied.rateLimit = new SiteEntry.RateLimitSpec(Long.parseLong(average), period,
                burst == null ? 1 : Long.parseLong(burst));
        if (Tree.get(cfg, "sourceCriterion") != null) {
            out.changed(origin, what + " sourceCriterion", "Usher limits per client address");
        }
        for (String key : Tree.asMap(cfg).keySet()) {
            if (!Set.of("average", "period", "burst", "sourcecriterion").contains(key.toLowerCase(Locale.ROOT))) {
                out.notConverted(origin, what + " " + key, "Usher keeps its rate-limit state in memory, per site");
            }
        }
    }
}
