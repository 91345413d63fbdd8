package dev.usher.admin;

import dev.usher.cert.CertManager;
import dev.usher.config.ConfigEditor;
import dev.usher.config.UpstreamAddress;
import dev.usher.route.Route;
import dev.usher.upstream.BackendStatus;

/**
 * One entry of {@code GET /api/sites}: the site as the file has it, with what the running Usher knows about it
 * (backends up or down, certificate, requests in the last minute). A site in the file that is not running (the file
 * was edited by hand and not reloaded, or did not load) shows its upstreams with {@code "up": null}.
 */
final class SiteStatusJson {
    private SiteStatusJson() {
    }

    static void write(StringBuilder out, ConfigEditor.Entry e, Route running, CertManager.CertificateStatus cert,
                      long lastMinute) {
        out.append("{\"name\":").append(Json.string(e.name()))
                .append(",\"kind\":").append(Json.string(e.kind()))
                .append(",\"upstreams\":[");
        if (running != null && running.upstreams() != null) {
            boolean first = true;
            for (BackendStatus b : running.upstreams().status()) {
                out.append(first ? "" : ",").append("{\"address\":").append(Json.string(address(b.address())))
                        .append(",\"up\":").append(b.up()).append('}');
                first = false;
            }
        } else {
            for (int i = 0; i < e.form().upstreams().size(); i++) {
                out.append(i == 0 ? "" : ",").append("{\"address\":")
                        .append(Json.string(e.form().upstreams().get(i))).append(",\"up\":null}");
            }
        }
        String policy = e.form().tls() == null ? "auto" : e.form().tls();
        boolean off = policy.equals("off") || running != null && !running.site().https();
        out.append("],\"tls\":{\"policy\":").append(Json.string(off ? "off" : policy))
                .append(",\"issuer\":").append(off || cert == null ? "null" : Json.string(cert.issuer()))
                .append(",\"not_after\":").append(off || cert == null ? "null" : Json.instant(cert.notAfter()))
                .append(",\"state\":").append(Json.string(off ? "none" : cert == null ? "pending" : cert.state()))
                .append(",\"error\":").append(off || cert == null || cert.error() == null ? "null"
                        : Json.string(cert.error()))
                .append("},\"requests_last_minute\":").append(lastMinute)
                .append(",\"editable\":").append(e.editable())
                .append(",\"running\":").append(running != null)
                .append('}');
    }

    private static String address(UpstreamAddress a) {
        return a.host().indexOf(':') >= 0 ? "[" + a.host() + "]:" + a.port() : a.host() + ":" + a.port();
    }
}
