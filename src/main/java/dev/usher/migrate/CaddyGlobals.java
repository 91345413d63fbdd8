package dev.usher.migrate;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The Caddyfile's global options block: {@code email}, {@code acme_ca}, {@code acme_ca_root}, {@code http_port},
 * {@code https_port}, {@code local_certs}, {@code servers { trusted_proxies static ... }} and {@code storage
 * file_system} (where the certificates are) carried over; the rest listed.
 */
final class CaddyGlobals {
    /** Options that change nothing a client sees: listed as differences, not as losses. */
    private static final Set<String> HARMLESS = Set.of("admin", "debug", "order", "persist_config",
            "skip_install_trust", "grace_period", "shutdown_delay", "renew_interval", "storage_clean_interval",
            "ocsp_interval", "log");

    int httpPort = 80;
    int httpsPort = 443;
    boolean localCerts;
    Path storage;

    CaddyGlobals(List<Caddyfile.Directive> options, Path base, Conversion.Builder out) {
        List<String> trusted = new ArrayList<>();
        for (Caddyfile.Directive d : options) {
            Origin origin = new Origin(CaddyImport.FORMAT, d.file(), d.where());
            String arg = d.args().isEmpty() ? null : d.args().get(0);
            switch (d.name().toLowerCase(Locale.ROOT)) {
                case "email" -> out.globals(out.globals().withEmail(arg));
                case "acme_ca" -> out.globals(out.globals().withAcme(arg, out.globals().acmeTrust()));
                case "acme_ca_root" -> {
                    if (arg != null && java.nio.file.Files.isReadable(base.resolve(arg))) {
                        out.globals(out.globals().withAcme(out.globals().acmeCa(), base.resolve(arg).toString()));
                    } else {
                        out.notConverted(origin, "acme_ca_root " + arg, "cannot read " + (arg == null ? "it"
                                : base.resolve(arg)) + "; give the CA's roots with --ca-trust");
                    }
                }
                case "http_port" -> httpPort = port(arg, 80);
                case "https_port" -> httpsPort = port(arg, 443);
                case "local_certs" -> localCerts = true;
                case "storage" -> storage(d, base, origin, out);
                case "servers" -> servers(d, trusted, origin, out);
                case "auto_https" -> {
                    if ("disable_redirects".equals(arg)) {
                        out.changed(origin, "auto_https disable_redirects", "Usher always redirects plain HTTP to "
                                + "HTTPS for an HTTPS site; write http:// sites for plain HTTP");
                    } else if (!"ignore_loaded_certs".equals(arg)) {
                        out.notConverted(origin, "auto_https " + String.join(" ", d.args()), "Usher gets every HTTPS "
                                + "site a certificate; write http:// sites, or listen: {https: off}, by hand");
                    }
                }
                default -> {
                    String what = d.name() + (d.args().isEmpty() ? "" : " " + String.join(" ", d.args()));
                    if (HARMLESS.contains(d.name())) {
                        out.changed(origin, what, "a Caddy setting with no counterpart; it changes nothing a client "
                                + "sees (Usher's admin endpoint is admin: in usher.yaml)");
                    } else {
                        out.notConverted(origin, what, "no counterpart in usher.yaml");
                    }
                }
            }
        }
        if (httpPort != 80 || httpsPort != 443) {
            out.globals(out.globals().withListen(httpPort != 80 ? ":" + httpPort : null,
                    httpsPort != 443 ? ":" + httpsPort : null));
        }
        if (!trusted.isEmpty()) {
            out.globals(out.globals().withTrustedProxies(trusted));
        }
    }

    private static int port(String arg, int otherwise) {
        return arg != null && arg.matches("\\d{1,5}") ? Integer.parseInt(arg) : otherwise;
    }

    private void storage(Caddyfile.Directive d, Path base, Origin origin, Conversion.Builder out) {
        if (!d.args().isEmpty() && d.args().get(0).equals("file_system")) {
            String root = d.args().size() > 1 ? d.args().get(1) : null;
            for (Caddyfile.Directive sub : d.block()) {
                if (sub.name().equals("root") && !sub.args().isEmpty()) {
                    root = sub.args().get(0);
                }
            }
            if (root != null) {
                storage = base.resolve(root);
                return;
            }
        }
        out.notConverted(origin, "storage " + String.join(" ", d.args()), "only file_system storage is read; give "
                + "the certificates folder with --certs");
    }

    private static void servers(Caddyfile.Directive d, List<String> trusted, Origin origin, Conversion.Builder out) {
        for (Caddyfile.Directive sub : d.block()) {
            if (sub.name().equals("trusted_proxies") && !sub.args().isEmpty() && sub.args().get(0).equals("static")) {
                for (String range : sub.args().subList(1, sub.args().size())) {
                    if (range.equals("private_ranges")) {
                        trusted.addAll(List.of("192.168.0.0/16", "172.16.0.0/12", "10.0.0.0/8", "127.0.0.1/8",
                                "fd00::/8", "::1"));
                    } else {
                        trusted.add(range);
                    }
                }
            } else {
                out.notConverted(origin, "servers " + sub.name(), "Usher's listeners have no such option");
            }
        }
    }
}
