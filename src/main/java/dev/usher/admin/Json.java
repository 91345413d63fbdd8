package dev.usher.admin;

import dev.usher.json.JsonText;
import dev.usher.cert.CertificateStatus;
import dev.usher.cert.CertifiedKey;
import dev.usher.config.ConfigError;
import dev.usher.reload.Changes;
import dev.usher.reload.ReloadResult;

import java.util.Comparator;
import java.util.List;

/** The admin API's few JSON shapes, written by hand: no JSON library is worth its memory for these. */
final class Json {
    private Json() {
    }

    static String error(String message) {
        return "{\"error\":" + string(message) + "}";
    }

    static String renewed(String name, CertifiedKey cert) {
        return "{\"name\":" + string(name) + ",\"sha256\":" + string(cert.sha256()) + ",\"not_after\":"
                + string(cert.notAfter().toString()) + "}";
    }

    /** {@code {"status":"reloaded","took_ms":12,"sites_added":[…],…,"summary":"…"}}. */
    static String reloaded(ReloadResult result) {
        Changes c = result.changes();
        return "{\"status\":\"reloaded\",\"took_ms\":" + result.took().toMillis()
                + ",\"sites_added\":" + strings(c.sitesAdded())
                + ",\"sites_removed\":" + strings(c.sitesRemoved())
                + ",\"sites_changed\":" + strings(c.sitesChanged())
                + ",\"settings_changed\":" + strings(c.settings())
                + ",\"listeners\":" + strings(c.listeners())
                + ",\"summary\":" + string(c.summary()) + "}";
    }

    /** {@code [{"file":…,"line":3,"column":5,"path":…,"message":…}, …]}; line and column 0 when not in the file. */
    static String configErrors(List<ConfigError> errors) {
        StringBuilder out = new StringBuilder("[");
        for (ConfigError e : errors) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append("{\"file\":").append(string(e.file()))
                    .append(",\"line\":").append(e.line())
                    .append(",\"column\":").append(e.column())
                    .append(",\"path\":").append(string(e.path()))
                    .append(",\"message\":").append(string(e.message()))
                    .append('}');
        }
        return out.append(']').toString();
    }

    private static String strings(List<String> values) {
        StringBuilder out = new StringBuilder("[");
        for (String v : values) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append(string(v));
        }
        return out.append(']').toString();
    }

    static String certificates(List<CertificateStatus> all) {
        StringBuilder out = new StringBuilder("[");
        all.stream().sorted(Comparator.comparing(CertificateStatus::name)).forEach(s -> {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append("{\"name\":").append(string(s.name()))
                    .append(",\"policy\":").append(string(s.policy()))
                    .append(",\"issuer\":").append(string(s.issuer()))
                    .append(",\"not_after\":").append(s.notAfter() == null ? "null" : string(s.notAfter().toString()))
                    .append(",\"sha256\":").append(s.sha256() == null ? "null" : string(s.sha256()))
                    .append(",\"not_before\":").append(instant(s.notBefore()))
                    .append(",\"state\":").append(string(s.state()))
                    .append(",\"next_renewal\":").append(instant(s.nextRenewal()))
                    .append(",\"error\":").append(s.error() == null ? "null" : string(s.error()))
                    .append('}');
        });
        return out.append(']').toString();
    }

    /** An instant as an ISO-8601 string in UTC, or null. */
    static String instant(java.time.Instant at) {
        return at == null ? "null" : string(at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
    }

    /** A JSON string literal (see {@link JsonText}). */
    static String string(String text) {
        return JsonText.quote(text);
    }
}
