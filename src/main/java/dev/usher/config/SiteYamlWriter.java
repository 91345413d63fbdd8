package dev.usher.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Writes one site of the admin form as {@code usher.yaml} lines: the shortest form that says everything, with each
 * scalar plain when YAML reads it back as the same string and double-quoted otherwise. Used by {@link ConfigEditor}.
 */
final class SiteYamlWriter {
    private SiteYamlWriter() {
    }

    /** The key the form's site is written under: {@code http://} for a plain-HTTP site (not yet quoted). */
    static String keyOf(SiteForm form) {
        return "off".equals(form.tls()) ? "http://" + form.name() : form.name();
    }

    /** The site's lines as the API writes them: the shortest form that says everything. */
    static List<String> render(SiteForm form, int indent, int step, String newline) {
        String pad = " ".repeat(indent);
        String inner = " ".repeat(indent + step);
        String key = quoteKey(keyOf(form));
        String to = form.upstreams().size() == 1 ? scalar(form.upstreams().get(0))
                : "[" + String.join(", ", form.upstreams().stream().map(SiteYamlWriter::scalar).toList()) + "]";
        List<String> out = new ArrayList<>();
        if (form.shortForm()) {
            out.add(pad + key + ": " + to + newline);
            return out;
        }
        out.add(pad + key + ":" + newline);
        SiteForm.SelfHosting self = form.selfHosting();
        out.add(inner + (self.root() != null ? "root: " + scalar(self.root()) : "to: " + to) + newline);
        if ("files".equals(form.tls())) {
            out.add(inner + "tls: {cert: " + scalar(nullToEmpty(form.cert())) + ", key: "
                    + scalar(nullToEmpty(form.key())) + "}" + newline);
        } else if (form.tls() != null && !form.tls().equals("auto") && !form.tls().equals("off")) {
            out.add(inner + "tls: " + scalar(form.tls()) + newline);
        }
        if (form.policy() != null && !form.policy().equals("round_robin")) {
            out.add(inner + "policy: " + scalar(form.policy()) + newline);
        }
        if (form.gzip() != null && !form.gzip()) {
            out.add(inner + "gzip: false" + newline);
        }
        if (form.maxBody() != null) {
            out.add(inner + "max_body: " + scalar(form.maxBody()) + newline);
        }
        if (form.securityHeaders() != null && form.securityHeaders()) {
            out.add(inner + "security_headers: true" + newline);
        }
        if (form.healthPath() != null) {
            out.add(inner + "health: {path: " + scalar(form.healthPath()) + "}" + newline);
        }
        if (form.skipsVerify()) {
            out.add(inner + "upstream_tls: {insecure_skip_verify: true}" + newline);
        }
        if (self.authUrl() != null) {
            out.add(inner + "forward_auth: {url: " + scalar(self.authUrl())
                    + (self.authPreset() == null ? "" : ", preset: " + scalar(self.authPreset())) + "}" + newline);
        }
        if (self.waitForBackend() != null) {
            out.add(inner + "wait_for_backend: " + scalar(self.waitForBackend()) + newline);
        }
        if (self.maintenance() != null && self.maintenance()) {
            out.add(inner + "maintenance: true" + newline);
        }
        if (!form.paths().isEmpty()) {
            out.add(inner + "paths:" + newline);
            String pathPad = " ".repeat(indent + 2 * step);
            for (SiteForm.Path path : form.paths()) {
                // Always {to: ...}: an error in the upstream then has a place of its own, apart from the pattern's.
                out.add(pathPad + quoteKey(path.pattern()) + ": {to: " + scalar(path.upstream())
                        + (path.stripPrefix() ? ", strip_prefix: true}" : "}") + newline);
            }
        }
        return out;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** A scalar as the loader reads it back: see {@link YamlScalars#value}. */
    static String scalar(String value) {
        return YamlScalars.value(value);
    }

    private static String quoteKey(String key) {
        return YamlScalars.key(key);
    }
}
