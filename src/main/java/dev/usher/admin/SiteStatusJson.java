package dev.usher.admin;

import dev.usher.cert.CertificateStatus;
import dev.usher.config.ConfigEditor;
import dev.usher.config.LabelSite;
import dev.usher.config.TlsPolicy;
import dev.usher.config.UpstreamAddress;
import dev.usher.config.UpstreamScheme;
import dev.usher.route.Route;
import dev.usher.upstream.BackendStatus;

import java.util.Locale;

/**
 * One entry of {@code GET /api/sites}: the site as the file has it, with what the running Usher knows about it
 * (backends up or down, certificate, requests in the last minute). A site in the file that is not running (the file
 * was edited by hand and not reloaded, or did not load) shows its upstreams with {@code "up": null}. A site that
 * containers announce with labels is listed read-only ({@code "source": "labels"}), with its containers and the
 * network each is reached on.
 */
final class SiteStatusJson {
    private SiteStatusJson() {
    }

    static void write(StringBuilder out, ConfigEditor.Entry e, Route running, CertificateStatus cert,
                      long lastMinute) {
        out.append("{\"name\":").append(Json.string(e.name()))
                .append(",\"kind\":").append(Json.string(e.kind()))
                .append(",\"source\":\"file\",\"upstreams\":[");
        if (running != null && running.upstreams() != null) {
            runningUpstreams(out, running);
        } else {
            for (int i = 0; i < e.form().upstreams().size(); i++) {
                out.append(i == 0 ? "" : ",").append("{\"address\":")
                        .append(Json.string(e.form().upstreams().get(i))).append(",\"up\":null}");
            }
        }
        String policy = e.form().tls() == null ? "auto" : e.form().tls();
        boolean off = policy.equals("off") || running != null && !running.site().https();
        tls(out.append("],"), off ? "off" : policy, cert);
        out.append(",\"requests_last_minute\":").append(lastMinute)
                .append(",\"editable\":").append(e.editable())
                .append(",\"running\":").append(running != null)
                .append('}');
    }

    /** A site from container labels: always running (it exists only in the running config), never editable. */
    static void write(StringBuilder out, LabelSite site, Route running, CertificateStatus cert,
                      long lastMinute) {
        out.append("{\"name\":").append(Json.string(site.name()))
                .append(",\"kind\":\"proxy\",\"source\":\"labels\",\"containers\":[");
        for (int i = 0; i < site.backends().size(); i++) {
            LabelSite.Backend b = site.backends().get(i);
            out.append(i == 0 ? "" : ",").append("{\"name\":").append(Json.string(b.container()))
                    .append(",\"network\":").append(Json.string(b.network()))
                    .append(",\"address\":").append(Json.string(address(b.address()))).append('}');
        }
        out.append("],\"upstreams\":[");
        if (running != null && running.upstreams() != null) {
            runningUpstreams(out, running);
        }
        TlsPolicy policy = running == null ? TlsPolicy.NONE : running.site().tls();
        tls(out.append("],"), policy.https() ? policy.kind().name().toLowerCase(Locale.ROOT) : "off", cert);
        out.append(",\"requests_last_minute\":").append(lastMinute)
                .append(",\"editable\":false,\"running\":").append(running != null)
                .append('}');
    }

    private static void runningUpstreams(StringBuilder out, Route running) {
        boolean first = true;
        for (BackendStatus b : running.upstreams().status()) {
            out.append(first ? "" : ",").append("{\"address\":").append(Json.string(address(b.address())))
                    .append(",\"up\":").append(b.up());
            if (b.address().scheme() == UpstreamScheme.HTTPS && b.address().tls().insecureSkipVerify()) {
                out.append(",\"unverified\":true"); // its certificate is not checked: the list says so
            }
            out.append('}');
            first = false;
        }
    }

    /** {@code "tls":{...}}: the policy, and the certificate's issuer, expiry and state when there is one. */
    private static void tls(StringBuilder out, String policy, CertificateStatus cert) {
        boolean off = policy.equals("off");
        out.append("\"tls\":{\"policy\":").append(Json.string(policy))
                .append(",\"issuer\":").append(off || cert == null ? "null" : Json.string(cert.issuer()))
                .append(",\"not_after\":").append(off || cert == null ? "null" : Json.instant(cert.notAfter()))
                .append(",\"state\":").append(Json.string(off ? "none" : cert == null ? "pending" : cert.state()))
                .append(",\"error\":").append(off || cert == null || cert.error() == null ? "null"
                        : Json.string(cert.error()))
                .append('}');
    }

    /** {@code host:port}, with its scheme when it is not plain HTTP ({@code https://10.0.0.5:8006}). */
    private static String address(UpstreamAddress a) {
        return a.toString();
    }
}
