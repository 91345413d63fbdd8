package dev.usher.admin;

import dev.usher.json.JsonReader;
import dev.usher.config.SiteForm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * SiteForm ↔ JSON: {@code {"name", "upstreams": [...], "tls": "auto"|"acme"|"internal"|"off"|{"cert","key"},
 * "policy", "gzip", "max_body", "security_headers", "health_path", "insecure_skip_verify",
 * "paths": [{"path", "to", "strip_prefix"}], "root", "maintenance", "wait_for_backend", "forward_auth": {"url",
 * "preset"}}} (a site has "upstreams" or, a static site, "root"). Reading checks the shape (types, required
 * fields); the values themselves are checked by the config loader once written into the file's text.
 */
final class SiteFormJson {
    private static final Set<String> TLS = Set.of("auto", "acme", "internal", "off");
    private static final Set<String> KEYS = Set.of("name", "upstreams", "tls", "policy", "gzip", "max_body",
            "security_headers", "health_path", "paths", "insecure_skip_verify", "root", "maintenance",
            "wait_for_backend", "forward_auth");
    private static final Set<String> AUTH_KEYS = Set.of("url", "preset");
    private static final Set<String> PATH_KEYS = Set.of("path", "to", "strip_prefix");

    /** The form read, or the errors that stop it. */
    record Parsed(SiteForm form, List<FieldErrors.FieldError> errors) {
    }

    private SiteFormJson() {
    }

    static Parsed read(String body) throws JsonReader.BadJson {
        if (!(JsonReader.parse(body) instanceof Map<?, ?> map)) {
            throw new JsonReader.BadJson("the body must be a JSON object (the site form)");
        }
        List<FieldErrors.FieldError> errors = new ArrayList<>();
        for (Object key : map.keySet()) {
            if (!KEYS.contains(key)) {
                errors.add(new FieldErrors.FieldError(null, "unknown field \"" + key + "\""));
            }
        }
        String name = text(map, "name", errors);
        if (name == null || name.isBlank()) {
            errors.add(new FieldErrors.FieldError("name", "give the site's name, such as app.example.com"));
        } else if (name.contains("://")) {
            errors.add(new FieldErrors.FieldError("name", "write the name without http:// or https:// (choose "
                    + "tls: off for plain HTTP)"));
        }
        List<String> upstreams = new ArrayList<>();
        Object ups = map.get("upstreams");
        String root = blankToNull(text(map, "root", errors));
        if (root != null) {
            if (ups instanceof List<?> list && !list.isEmpty()) {
                errors.add(new FieldErrors.FieldError("upstreams", "a site serves a folder or forwards to upstreams, "
                        + "not both"));
            }
        } else if (!(ups instanceof List<?> list) || list.isEmpty()) {
            errors.add(new FieldErrors.FieldError("upstreams", "give at least one upstream, such as app:80 (or a "
                    + "folder to serve)"));
        } else {
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i) instanceof String s && !s.isBlank()) {
                    upstreams.add(s.strip());
                } else {
                    errors.add(new FieldErrors.FieldError("upstreams[" + i + "]", "an upstream address such as "
                            + "app:80"));
                }
            }
        }
        String tls = null;
        String cert = null;
        String key = null;
        Object t = map.get("tls");
        if (t instanceof String word) {
            tls = word.strip().toLowerCase(Locale.ROOT);
            if (!TLS.contains(tls)) {
                errors.add(new FieldErrors.FieldError("tls", "one of auto, acme, internal, off, or {cert, key}"));
            }
        } else if (t instanceof Map<?, ?> files) {
            tls = "files";
            cert = text(files, "cert", errors, "tls.cert");
            key = text(files, "key", errors, "tls.key");
            if (cert == null || cert.isBlank()) {
                errors.add(new FieldErrors.FieldError("tls.cert", "the certificate chain file (PEM)"));
            }
            if (key == null || key.isBlank()) {
                errors.add(new FieldErrors.FieldError("tls.key", "the private key file (PEM)"));
            }
        } else if (t != null) {
            errors.add(new FieldErrors.FieldError("tls", "one of auto, acme, internal, off, or {cert, key}"));
        }
        String policy = text(map, "policy", errors);
        Boolean gzip = bool(map, "gzip", errors);
        Object maxBody = map.get("max_body");
        String maxBodyText = maxBody instanceof Double d ? (d == Math.rint(d) ? Long.toString(d.longValue())
                : d.toString()) : text(map, "max_body", errors);
        Boolean security = bool(map, "security_headers", errors);
        String health = text(map, "health_path", errors);
        Boolean skipVerify = bool(map, "insecure_skip_verify", errors);
        List<SiteForm.Path> paths = paths(map.get("paths"), errors);
        Boolean maintenance = bool(map, "maintenance", errors);
        String wait = blankToNull(text(map, "wait_for_backend", errors));
        String[] auth = forwardAuth(map.get("forward_auth"), errors);
        if (!errors.isEmpty()) {
            return new Parsed(null, errors);
        }
        SiteForm.SelfHosting self = new SiteForm.SelfHosting(root, Boolean.TRUE.equals(maintenance) ? true : null,
                wait, auth[0], auth[1]);
        return new Parsed(new SiteForm(name.strip(), upstreams, tls, cert, key, blankToNull(policy), gzip,
                blankToNull(maxBodyText), security, blankToNull(health), paths,
                skipVerify != null && skipVerify ? true : null, self), List.of());
    }

    /** {@code {"url", "preset"}} as {url, preset}, each null when not given (no forward auth without a URL). */
    private static String[] forwardAuth(Object value, List<FieldErrors.FieldError> errors) {
        if (value == null) {
            return new String[2];
        }
        if (!(value instanceof Map<?, ?> auth)) {
            errors.add(new FieldErrors.FieldError("forward_auth", "{url, preset}: the auth server's URL and, for "
                    + "Authelia or Authentik, its preset"));
            return new String[2];
        }
        for (Object key : auth.keySet()) {
            if (!AUTH_KEYS.contains(key)) {
                errors.add(new FieldErrors.FieldError("forward_auth", "unknown field \"" + key + "\""));
            }
        }
        String url = blankToNull(text(auth, "url", errors, "forward_auth.url"));
        String preset = blankToNull(text(auth, "preset", errors, "forward_auth.preset"));
        if (url == null && preset != null) {
            errors.add(new FieldErrors.FieldError("forward_auth.url", "give the auth server's URL, such as "
                    + "http://authelia:9091"));
        }
        return new String[] {url, preset};
    }

    /** The form's path rows; their patterns and upstreams are checked by the config loader. */
    private static List<SiteForm.Path> paths(Object value, List<FieldErrors.FieldError> errors) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> rows)) {
            errors.add(new FieldErrors.FieldError("paths", "a list of {path, to, strip_prefix}"));
            return List.of();
        }
        List<SiteForm.Path> paths = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            String at = "paths[" + i + "]";
            if (!(rows.get(i) instanceof Map<?, ?> row)) {
                errors.add(new FieldErrors.FieldError(at, "a path row: {path, to, strip_prefix}"));
                continue;
            }
            for (Object key : row.keySet()) {
                if (!PATH_KEYS.contains(key)) {
                    errors.add(new FieldErrors.FieldError(at, "unknown field \"" + key + "\""));
                }
            }
            String path = text(row, "path", errors, at + ".path");
            String to = text(row, "to", errors, at + ".to");
            Object strip = row.get("strip_prefix");
            if (strip != null && !(strip instanceof Boolean)) {
                errors.add(new FieldErrors.FieldError(at + ".strip_prefix", "must be true or false"));
            }
            if (path == null || path.isBlank()) {
                errors.add(new FieldErrors.FieldError(at + ".path", "give the path, such as /api/"));
            }
            if (to == null || to.isBlank()) {
                errors.add(new FieldErrors.FieldError(at + ".to", "give the upstream for this path, such as api:8080"));
            }
            if (path != null && to != null) {
                paths.add(new SiteForm.Path(path.strip(), to.strip(), Boolean.TRUE.equals(strip)));
            }
        }
        return paths;
    }

    static String write(SiteForm f) {
        String tls = "files".equals(f.tls()) ? "{\"cert\":" + Json.string(nonNull(f.cert())) + ",\"key\":"
                + Json.string(nonNull(f.key())) + "}" : Json.string(f.tls() == null ? "auto" : f.tls());
        StringBuilder ups = new StringBuilder("[");
        for (String u : f.upstreams()) {
            ups.append(ups.length() > 1 ? "," : "").append(Json.string(u));
        }
        return "{\"name\":" + Json.string(f.name()) + ",\"upstreams\":" + ups.append(']') + ",\"tls\":" + tls
                + ",\"policy\":" + Json.string(f.policy() == null ? "round_robin" : f.policy())
                + ",\"gzip\":" + (f.gzip() == null || f.gzip())
                + ",\"max_body\":" + (f.maxBody() == null ? "null" : Json.string(f.maxBody()))
                + ",\"security_headers\":" + (f.securityHeaders() != null && f.securityHeaders())
                + ",\"health_path\":" + (f.healthPath() == null ? "null" : Json.string(f.healthPath()))
                + ",\"insecure_skip_verify\":" + f.skipsVerify() + ",\"paths\":" + paths(f) + selfHosting(f) + "}";
    }

    private static String selfHosting(SiteForm f) {
        SiteForm.SelfHosting self = f.selfHosting();
        return ",\"root\":" + nullable(self.root()) + ",\"maintenance\":" + Boolean.TRUE.equals(self.maintenance())
                + ",\"wait_for_backend\":" + nullable(self.waitForBackend()) + ",\"forward_auth\":"
                + (self.authUrl() == null ? "null" : "{\"url\":" + Json.string(self.authUrl()) + ",\"preset\":"
                + nullable(self.authPreset()) + "}");
    }

    private static String nullable(String s) {
        return s == null ? "null" : Json.string(s);
    }

    private static String paths(SiteForm f) {
        StringBuilder out = new StringBuilder("[");
        for (SiteForm.Path p : f.paths()) {
            out.append(out.length() > 1 ? "," : "").append("{\"path\":").append(Json.string(p.pattern()))
                    .append(",\"to\":").append(Json.string(p.upstream())).append(",\"strip_prefix\":")
                    .append(p.stripPrefix()).append('}');
        }
        return out.append(']').toString();
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static String text(Map<?, ?> map, String key, List<FieldErrors.FieldError> errors) {
        return text(map, key, errors, key);
    }

    private static String text(Map<?, ?> map, String key, List<FieldErrors.FieldError> errors, String field) {
        Object v = map.get(key);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        errors.add(new FieldErrors.FieldError(field, "must be text"));
        return null;
    }

    private static Boolean bool(Map<?, ?> map, String key, List<FieldErrors.FieldError> errors) {
        Object v = map.get(key);
        if (v == null || v instanceof Boolean) {
            return (Boolean) v;
        }
        errors.add(new FieldErrors.FieldError(key, "must be true or false"));
        return null;
    }
}
