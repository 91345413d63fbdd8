package dev.usher.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Writes one site of the admin form as {@code usher.yaml} lines: the shortest form that says everything, with each
 * scalar plain when YAML reads it back as the same string and double-quoted otherwise. Used by {@link ConfigEditor}.
 */
final class SiteYamlWriter {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./:@+~*-]*");
    private static final Pattern NOT_A_STRING = Pattern.compile(
            "null|Null|NULL|~|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
                    + "|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
    private static final Pattern BARE_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

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
        out.add(inner + "to: " + to + newline);
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
        return out;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** A scalar written plain when YAML reads it back as the same string, double-quoted otherwise. */
    static String scalar(String value) {
        if (PLAIN.matcher(value).matches() && !value.endsWith(":") && !NOT_A_STRING.matcher(value).matches()) {
            return value;
        }
        return quoted(value);
    }

    private static String quoteKey(String key) {
        if (BARE_KEY.matcher(key).matches() && !NOT_A_STRING.matcher(key).matches()) {
            return key;
        }
        if (key.startsWith("http://") && BARE_KEY.matcher(key.substring(7)).matches()) {
            return key;
        }
        return quoted(key);
    }

    private static String quoted(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || c == 0x85 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
