package dev.usher.migrate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Traefik's dynamic configuration (the {@code http} routers, services and middlewares, and {@code tls}
 * certificates), from a file or merged from container labels, as sites. A router is HTTPS when it has a
 * {@code tls} section or listens on an entry point with TLS; routers for the same name merge, an HTTPS one winning
 * (Usher redirects plain HTTP itself, so a router that only redirects to HTTPS is not needed).
 */
final class TraefikDynamic {
    /** Entry points named like these are taken to be the HTTPS ones when the static configuration is not at hand. */
    private static final Set<String> TLS_ENTRY_POINTS = Set.of("websecure", "https", "secure", "tls", "web-secure",
            "websecured", "443");

    /** One router's site for one of its names, before routers for the same name merge. */
    private record RouterSite(SiteEntry.Builder site, boolean https, boolean redirectsOnly, Origin origin,
                              String router) {
    }

    private final Conversion.Builder out;
    private final String file;
    private final Set<String> tlsEntryPoints;

    /**
     * @param tlsEntryPoints entry points the static configuration gives TLS (besides those named like
     *                       {@code websecure})
     */
    TraefikDynamic(Conversion.Builder out, String file, Set<String> tlsEntryPoints) {
        this.out = out;
        this.file = file;
        this.tlsEntryPoints = tlsEntryPoints;
    }

    /** Converts one dynamic configuration tree. */
    void convert(Object tree) {
        Object http = Tree.get(tree, "http");
        Map<String, Object> services = Tree.map(http, "services");
        TraefikMiddlewares middlewares = new TraefikMiddlewares(Tree.map(http, "middlewares"), out);
        Map<String, List<RouterSite>> byName = new LinkedHashMap<>();
        Tree.map(http, "routers").forEach((name, def) -> router(name, def, services, middlewares, byName));
        byName.forEach(this::merge);
        for (String other : List.of("tcp", "udp")) {
            if (Tree.get(tree, other) != null) {
                out.notConverted(origin("top level"), other + " routers", "usher import does not convert TCP and "
                        + "UDP routers yet (Usher has streams:; add them by hand)");
            }
        }
        tls(Tree.get(tree, "tls"));
    }

    private void router(String name, Object def, Map<String, Object> services, TraefikMiddlewares middlewares,
                        Map<String, List<RouterSite>> byName) {
        Origin origin = origin("router " + name);
        String rule = Tree.string(def, "rule");
        if (rule == null) {
            out.notConverted(origin, "router " + name, "no rule (Traefik's default rule makes one from the container "
                    + "name); give the site by hand");
            return;
        }
        TraefikRules.Hosts hosts = TraefikRules.hosts(rule);
        if (hosts.problem() != null) {
            out.notConverted(origin, "rule " + rule, hosts.problem());
            return;
        }
        List<String> entryPoints = Tree.strings(def, "entryPoints");
        boolean https = Tree.get(def, "tls") != null && !"false".equalsIgnoreCase(Tree.string(def, "tls"))
                || entryPoints.stream().anyMatch(e -> tlsEntryPoints.contains(e)
                || TLS_ENTRY_POINTS.contains(e.toLowerCase(Locale.ROOT)));
        if (Tree.get(Tree.get(def, "tls"), "options") != null) {
            out.notConverted(origin, "tls options " + Tree.string(Tree.get(def, "tls"), "options"), "Usher's TLS "
                    + "settings are its own (TLS 1.2 and 1.3, modern ciphers)");
        }
        TraefikMiddlewares.Applied applied = middlewares.apply(Tree.strings(def, "middlewares"), origin);
        String serviceName = Tree.string(def, "service");
        List<String> upstreams = serviceName == null ? null : upstreams(serviceName, services, origin);
        boolean redirectsOnly = applied.redirectsToHttps && !https;
        if (upstreams == null && !redirectsOnly) {
            if (serviceName == null) {
                out.notConverted(origin, "router " + name, "it names no service");
            }
            return;
        }
        for (String host : hosts.names()) {
            HostText.Host h = HostText.parse(host);
            SiteEntry.Builder site = SiteEntry.builder(h.ascii(), origin).writtenAs(h.writtenAs()).plainHttp(!https);
            if (upstreams != null) {
                site.proxy(upstreams);
                Object health = Tree.at(services.get(TraefikImport.withoutProvider(serviceName)), "loadBalancer",
                        "healthCheck");
                if (health != null && Tree.string(health, "path") != null) {
                    site.health(new SiteEntry.Health(Tree.string(health, "path"), duration(health, "interval"),
                            duration(health, "timeout")));
                }
            } else {
                site.redirect("https://{host}{uri}", 308);
            }
            applied.applyTo(site);
            if (applied.blocked != null) {
                site.commentedOut(applied.blocked);
            }
            byName.computeIfAbsent(h.ascii(), k -> new ArrayList<>()).add(new RouterSite(site, https, redirectsOnly,
                    origin, name));
        }
    }

    /** Routers for one name: the first HTTPS one, else the first plain one; the others noted. */
    private void merge(String name, List<RouterSite> routers) {
        RouterSite chosen = routers.stream().filter(RouterSite::https).findFirst()
                .orElse(routers.stream().filter(r -> !r.redirectsOnly()).findFirst().orElse(routers.get(0)));
        if (chosen.redirectsOnly()) {
            out.notConverted(chosen.origin(), name, "it only redirects to HTTPS, and no router here serves that; "
                    + "Usher does the redirect itself for an HTTPS site");
            return;
        }
        for (RouterSite other : routers) {
            if (other == chosen || other.redirectsOnly() && chosen.https()) {
                continue;
            }
            out.changed(other.origin(), name, other.https() == chosen.https() ? "router " + chosen.router()
                    + " serves this name too; that one is used" : "served over plain HTTP too; Usher redirects plain "
                    + "HTTP to HTTPS");
        }
        out.site(chosen.site().build());
    }

    /** The backends of a load-balancer service, or null (after saying why) when there are none Usher can use. */
    private List<String> upstreams(String reference, Map<String, Object> services, Origin origin) {
        String name = TraefikImport.withoutProvider(reference);
        Object def = services.get(name);
        if (def == null) {
            out.notConverted(origin, "service " + reference, reference.endsWith("@internal")
                    ? "Traefik's own service (dashboard, API) has no counterpart in Usher"
                    : "not defined in what was read");
            return null;
        }
        Object lb = Tree.get(def, "loadBalancer");
        if (lb == null) {
            String kind = Tree.asMap(def).keySet().stream().findFirst().orElse("?");
            out.notConverted(origin, "service " + name + " (" + kind + ")", "only loadBalancer services are carried "
                    + "over");
            return null;
        }
        List<String> upstreams = new ArrayList<>();
        Object servers = Tree.get(lb, "servers");
        if (servers instanceof List<?> list) {
            for (Object server : list) {
                String url = Tree.string(server, "url");
                BackendText.Backend backend = url == null ? new BackendText.Backend(null, "no url")
                        : BackendText.parse(url, "localhost");
                if (backend.ok()) {
                    upstreams.add(backend.address());
                } else {
                    out.notConverted(origin, "service " + name + " server " + url, backend.problem());
                }
                if (Tree.get(server, "weight") != null) {
                    out.changed(origin, "service " + name + " server weight", "Usher balances evenly");
                }
            }
        }
        if (Tree.get(lb, "sticky") != null) {
            out.notConverted(origin, "service " + name + " sticky", "Usher has no sticky cookie; policy: ip_hash keeps "
                    + "a client on one backend by its address");
        }
        if ("false".equalsIgnoreCase(Tree.string(lb, "passHostHeader"))) {
            out.notConverted(origin, "service " + name + " passHostHeader: false", "Usher always passes the Host the "
                    + "client asked for");
        }
        if (Tree.get(lb, "serversTransport") != null) {
            out.notConverted(origin, "service " + name + " serversTransport", "Usher's backend connections have no "
                    + "such settings");
        }
        if (upstreams.isEmpty()) {
            out.notConverted(origin, "service " + name, "no backend Usher can use");
            return null;
        }
        return upstreams;
    }

    private static String duration(Object node, String key) {
        String v = Tree.string(node, key);
        return v == null ? null : v.matches("\\d+") ? v + "s" : v;
    }

    /** {@code tls.certificates}: files (or PEM text) the user keeps; options and stores are Usher's own. */
    private void tls(Object tls) {
        if (tls == null) {
            return;
        }
        Object certificates = Tree.get(tls, "certificates");
        if (certificates instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                Origin origin = origin("tls.certificates[" + i + "]");
                String cert = Tree.string(list.get(i), "certFile");
                String key = Tree.string(list.get(i), "keyFile");
                if (cert == null || key == null) {
                    out.notConverted(origin, "certificate", "needs certFile and keyFile");
                    continue;
                }
                try {
                    if (cert.contains("-----BEGIN")) {
                        out.certificate(FoundCertificate.uploaded(origin, List.of(), cert, file, key, file));
                    } else {
                        Path certPath = Path.of(cert).toAbsolutePath();
                        Path keyPath = Path.of(key).toAbsolutePath();
                        if (!Files.isReadable(certPath) || !Files.isReadable(keyPath)) {
                            out.notConverted(origin, "certificate " + cert, "cannot read " + cert + " or " + key);
                            continue;
                        }
                        out.certificate(new FoundCertificate(origin, List.of(), SourceFiles.pem(certPath),
                                certPath.toString(), SourceFiles.pem(keyPath), keyPath.toString(),
                                FoundCertificate.Kind.USER_FILES, new FoundCertificate.Files(certPath, keyPath)));
                    }
                } catch (ImportException e) {
                    out.notConverted(origin, "certificate " + cert, e.getMessage());
                }
            }
        }
        for (String other : List.of("options", "stores")) {
            if (Tree.get(tls, other) != null) {
                out.notConverted(origin("tls." + other), "tls " + other, "Usher's TLS settings are its own (TLS 1.2 "
                        + "and 1.3, modern ciphers, no default certificate)");
            }
        }
    }

    private Origin origin(String place) {
        return new Origin(TraefikImport.FORMAT, file, place);
    }
}
