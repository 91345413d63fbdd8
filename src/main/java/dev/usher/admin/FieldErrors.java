package dev.usher.admin;

import dev.usher.config.ConfigEditor;
import dev.usher.config.ConfigError;
import dev.usher.config.SiteForm;

import java.util.List;
import java.util.Map;

/**
 * Validation errors as the form shows them: {@code [{"field": "upstreams[1]", "message": "..."}]}. A config error
 * whose YAML path is inside the edited site is given the form's field for it ({@code sites."x".to[1]} →
 * {@code upstreams[1]}, {@code sites."x".tls.cert} → {@code tls.cert}); any other error has field null and names
 * its place in the file.
 */
final class FieldErrors {
    /** One error of the form. */
    record FieldError(String field, String message) {
    }

    private static final Map<String, String> FIELDS = Map.ofEntries(Map.entry(".to", "upstreams"),
            Map.entry(".tls", "tls"), Map.entry(".tls.cert", "tls.cert"), Map.entry(".tls.key", "tls.key"),
            Map.entry(".policy", "policy"), Map.entry(".gzip", "gzip"), Map.entry(".max_body", "max_body"),
            Map.entry(".security_headers", "security_headers"), Map.entry(".health", "health_path"),
            Map.entry(".health.path", "health_path"), Map.entry(".upstream_tls", "insecure_skip_verify"),
            Map.entry(".upstream_tls.insecure_skip_verify", "insecure_skip_verify"), Map.entry(".paths", "paths"),
            Map.entry(".root", "root"), Map.entry(".maintenance", "maintenance"),
            Map.entry(".wait_for_backend", "wait_for_backend"), Map.entry(".forward_auth", "forward_auth"),
            Map.entry(".forward_auth.url", "forward_auth.url"), Map.entry(".forward_auth.preset", "forward_auth.preset"));

    private FieldErrors() {
    }

    static String json(List<FieldError> errors) {
        StringBuilder out = new StringBuilder("[");
        for (FieldError e : errors) {
            out.append(out.length() > 1 ? "," : "").append("{\"field\":")
                    .append(e.field() == null ? "null" : Json.string(e.field()))
                    .append(",\"message\":").append(Json.string(e.message())).append('}');
        }
        return out.append(']').toString();
    }

    /**
     * The config's errors with form fields. {@code form}: the edited site, or null; {@code keyColumn}: the 0-based
     * column of its key in the new text (an error there is about the name), or -1.
     */
    static String json(List<ConfigError> errors, SiteForm form, int keyColumn) {
        String prefix = form == null ? null : ConfigEditor.pathOf(ConfigEditor.keyOf(form));
        return json(errors.stream().map(e -> {
            String field = prefix == null ? null : field(e, prefix, form, keyColumn);
            return new FieldError(field, field == null ? e.format() : e.message());
        }).toList());
    }

    private static String field(ConfigError e, String prefix, SiteForm form, int keyColumn) {
        if (!e.path().startsWith(prefix)) {
            return null;
        }
        String rest = e.path().substring(prefix.length());
        if (rest.isEmpty()) {
            // the short form's upstream has the site's own path; its key is where name errors point
            return e.column() - 1 == keyColumn || form.upstreams().size() != 1 ? "name" : "upstreams[0]";
        }
        if (rest.startsWith("[")) {
            return "upstreams" + rest;
        }
        if (rest.startsWith(".to[")) {
            return "upstreams" + rest.substring(3);
        }
        String path = pathField(rest, form);
        return path != null ? path : FIELDS.get(rest);
    }

    /** {@code .paths."/api/"} → {@code paths[0].path}, {@code .paths."/api/".to} → {@code paths[0].to}. */
    private static String pathField(String rest, SiteForm form) {
        for (int i = 0; i < form.paths().size(); i++) {
            String at = ConfigEditor.pathOfPath(form.paths().get(i).pattern());
            if (rest.equals("." + at)) {
                return "paths[" + i + "].path";
            }
            if (rest.startsWith("." + at + ".")) {
                return rest.startsWith("." + at + ".strip_prefix") ? "paths[" + i + "].strip_prefix"
                        : "paths[" + i + "].to";
            }
        }
        return null;
    }
}
