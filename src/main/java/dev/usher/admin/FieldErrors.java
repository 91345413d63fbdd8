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

    private static final Map<String, String> FIELDS = Map.of(
            ".to", "upstreams", ".tls", "tls", ".tls.cert", "tls.cert", ".tls.key", "tls.key", ".policy", "policy",
            ".gzip", "gzip", ".max_body", "max_body", ".security_headers", "security_headers", ".health",
            "health_path", ".health.path", "health_path");

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
        return FIELDS.get(rest);
    }
}
