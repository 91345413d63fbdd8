package dev.usher.migrate;

import dev.usher.config.YamlScalars;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Writes a conversion as {@code usher.yaml} in Usher's shortest form: one line per site that only forwards (or
 * redirects, or answers), the long form only for sites with options, a comment beside each site saying where it came
 * from, sites that could not be carried over whole written as comments, the relayed TCP/UDP ports under
 * {@code streams:}, and the list of what was not converted at the end. Scalars are quoted the way the admin UI's
 * editor quotes them ({@link YamlScalars}).
 */
final class UsherYaml {
    private static final String INDENT = "  ";
    private static final String INNER = "    ";

    private UsherYaml() {
    }

    /**
     * The file's text.
     *
     * @param dataDir the {@code data:} line's folder, or null to leave Usher's default
     */
    static String render(Conversion conversion, Globals globals, List<SiteEntry> sites, List<StreamEntry> streams,
                         Path dataDir, List<Finding> findings) {
        StringBuilder out = new StringBuilder();
        out.append("# Imported from ").append(oneLine(conversion.source())).append(" by usher import.\n");
        out.append("# Each site says where it came from; what was not converted is listed at the end.\n\n");
        globals(out, globals, dataDir);
        out.append("sites:\n");
        boolean any = false;
        for (SiteEntry site : sites) {
            for (String line : site(site)) {
                out.append(line).append('\n');
            }
            any = true;
        }
        if (!any) {
            out.setLength(out.length() - "sites:\n".length());
            out.append("sites: {}\n");
        }
        streams(out, streams);
        findings(out, findings);
        return out.toString();
    }

    private static void globals(StringBuilder out, Globals g, Path dataDir) {
        int before = out.length();
        if (g.email() != null) {
            out.append("email: ").append(YamlScalars.value(g.email())).append('\n');
        }
        if (g.acmeCa() != null || g.acmeTrust() != null) {
            out.append("acme:\n");
            if (g.acmeCa() != null) {
                out.append(INDENT).append("ca: ").append(YamlScalars.quoted(g.acmeCa())).append('\n');
            }
            if (g.acmeTrust() != null) {
                out.append(INDENT).append("trust: ").append(YamlScalars.quoted(g.acmeTrust())).append('\n');
            }
        }
        if (dataDir != null) {
            out.append("data: ").append(YamlScalars.quoted(dataDir.toString())).append('\n');
        }
        if (g.listenHttp() != null || g.listenHttps() != null) {
            List<String> parts = new ArrayList<>();
            if (g.listenHttp() != null) {
                parts.add("http: " + YamlScalars.quoted(g.listenHttp()));
            }
            if (g.listenHttps() != null) {
                parts.add("https: " + YamlScalars.quoted(g.listenHttps()));
            }
            out.append("listen: {").append(String.join(", ", parts)).append("}\n");
        }
        if (!g.trustedProxies().isEmpty()) {
            out.append("trusted_proxies: ").append(list(g.trustedProxies())).append('\n');
        }
        if (out.length() > before) {
            out.append('\n');
        }
    }

    /** The site's lines, indented under {@code sites:}. */
    static List<String> site(SiteEntry site) {
        String key = YamlScalars.key(site.plainHttp() ? "http://" + site.name() : site.name());
        String comment = "  # " + site.origin().comment()
                + (site.writtenAs() != null ? ", written there as " + oneLine(site.writtenAs()) : "")
                + (site.state() == SiteEntry.State.COMMENTED_OUT ? "; not active: " + oneLine(site.commentReason())
                : "");
        List<String> options = options(site);
        List<String> lines = new ArrayList<>();
        String inline = inline(site);
        if (options.isEmpty() && inline != null) {
            lines.add(INDENT + key + ": " + inline + comment);
        } else {
            lines.add(INDENT + key + ":" + comment);
            lines.add(INNER + action(site.action()));
            for (String option : options) {
                lines.add(INNER + option);
            }
        }
        if (site.state() == SiteEntry.State.COMMENTED_OUT) {
            lines.replaceAll(line -> INDENT + "# " + line.substring(INDENT.length()));
        }
        return lines;
    }

    /** The one-line value of a site with no options, or null when its action needs the long form. */
    private static String inline(SiteEntry site) {
        return switch (site.action()) {
            case SiteEntry.Proxy p -> upstreams(p.upstreams());
            case SiteEntry.Redirect r -> "{" + action(r) + "}";
            case SiteEntry.Respond r -> "{" + action(r) + "}";
        };
    }

    private static String action(SiteEntry.Action action) {
        return switch (action) {
            case SiteEntry.Proxy p -> "to: " + upstreams(p.upstreams());
            case SiteEntry.Redirect r -> r.status() == 308 ? "redirect: " + YamlScalars.value(r.to())
                    : "redirect: {to: " + YamlScalars.value(r.to()) + ", status: " + r.status() + "}";
            case SiteEntry.Respond r -> r.body() == null ? "respond: " + r.status()
                    : r.status() == 200 ? "respond: " + YamlScalars.quoted(r.body())
                    : "respond: {status: " + r.status() + ", body: " + YamlScalars.quoted(r.body()) + "}";
        };
    }

    private static List<String> options(SiteEntry s) {
        List<String> o = new ArrayList<>();
        switch (s.tls()) {
            case INTERNAL -> o.add("tls: internal");
            case FILES -> o.add("tls: {cert: " + YamlScalars.quoted(s.certFiles().cert().toString()) + ", key: "
                    + YamlScalars.quoted(s.certFiles().key().toString()) + "}");
            case AUTO -> {
                // the default: nothing to write
            }
        }
        if (s.policy() != null) {
            o.add("policy: " + YamlScalars.value(s.policy()));
        }
        if (s.health() != null) {
            List<String> parts = new ArrayList<>();
            if (s.health().path() != null) {
                parts.add("path: " + YamlScalars.value(s.health().path()));
            }
            if (s.health().interval() != null) {
                parts.add("interval: " + YamlScalars.value(s.health().interval()));
            }
            if (s.health().timeout() != null) {
                parts.add("timeout: " + YamlScalars.value(s.health().timeout()));
            }
            o.add("health: {" + String.join(", ", parts) + "}");
        }
        if (!s.headers().isEmpty()) {
            o.add("headers: " + edits(s.headers()));
        }
        if (!s.requestHeaders().isEmpty()) {
            o.add("request_headers: " + edits(s.requestHeaders()));
        }
        if (!s.basicAuth().isEmpty()) {
            o.add("basic_auth: " + map(s.basicAuth(), YamlScalars::quoted));
        }
        if (!s.allow().isEmpty()) {
            o.add("allow: " + list(s.allow()));
        }
        if (!s.deny().isEmpty()) {
            o.add("deny: " + list(s.deny()));
        }
        if (s.rateLimit() != null) {
            o.add("rate_limit: {requests: " + s.rateLimit().requests() + ", per: "
                    + YamlScalars.value(s.rateLimit().per())
                    + (s.rateLimit().burst() > 0 ? ", burst: " + s.rateLimit().burst() : "") + "}");
        }
        if (Boolean.FALSE.equals(s.gzip())) {
            o.add("gzip: false");
        }
        if (s.accessLog() != null) {
            o.add("access_log: " + s.accessLog());
        }
        return o;
    }

    private static void streams(StringBuilder out, List<StreamEntry> streams) {
        if (streams.isEmpty()) {
            return;
        }
        out.append("\nstreams:\n");
        for (StreamEntry s : streams) {
            out.append(INDENT).append(YamlScalars.quoted(s.listen())).append(": ").append(YamlScalars.value(s.to()))
                    .append("  # ").append(oneLine(s.origin().comment())).append('\n');
        }
    }

    private static String upstreams(List<String> upstreams) {
        return upstreams.size() == 1 ? YamlScalars.value(upstreams.get(0)) : list(upstreams);
    }

    private static String list(List<String> values) {
        return "[" + String.join(", ", values.stream().map(YamlScalars::quoted).toList()) + "]";
    }

    private static String edits(List<HeaderEdit> edits) {
        List<String> parts = new ArrayList<>();
        for (HeaderEdit e : edits) {
            parts.add(YamlScalars.key(e.key()) + ": "
                    + (e.op() == HeaderEdit.Op.REMOVE ? "~" : YamlScalars.quoted(e.value())));
        }
        return "{" + String.join(", ", parts) + "}";
    }

    private static String map(Map<String, String> values, Function<String, String> valueForm) {
        List<String> parts = new ArrayList<>();
        values.forEach((k, v) -> parts.add(YamlScalars.key(k) + ": " + valueForm.apply(v)));
        return "{" + String.join(", ", parts) + "}";
    }

    private static void findings(StringBuilder out, List<Finding> findings) {
        for (Finding.Kind kind : Finding.Kind.values()) {
            List<Finding> these = findings.stream().filter(f -> f.kind() == kind).toList();
            if (these.isEmpty()) {
                continue;
            }
            out.append('\n').append(kind == Finding.Kind.NOT_CONVERTED ? "# Not converted:\n"
                    : "# Converted with a difference:\n");
            for (Finding f : these) {
                out.append("#   ").append(oneLine(f.line())).append('\n');
            }
        }
    }

    /** {@code s} with line breaks and other control characters made harmless inside a comment. */
    static String oneLine(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) || c == 0x2028 || c == 0x2029
                || c == 0x85 ? ' ' : c));
        return b.toString();
    }
}
