package dev.usher.config;

import java.util.List;

/**
 * A site as the admin form edits it: the options the form covers, each null when not written (the default).
 *
 * @param name            the site's name, without {@code http://}
 * @param upstreams       backend addresses as written
 * @param tls             {@code auto}, {@code acme}, {@code internal}, {@code off}, {@code files} (then {@code cert}
 *                        and {@code key} are set), or null for auto
 * @param cert            the certificate chain file for {@code files}
 * @param key             the private key file for {@code files}
 * @param policy          load-balancing policy as written, or null
 * @param gzip            compression on/off, or null (on)
 * @param maxBody         largest request body as written ({@code 10MiB}), or null
 * @param securityHeaders security headers on/off, or null (off)
 * @param healthPath      the active health check path, or null for none
 */
public record SiteForm(String name, List<String> upstreams, String tls, String cert, String key, String policy,
                       Boolean gzip, String maxBody, Boolean securityHeaders, String healthPath) {
    public SiteForm {
        upstreams = upstreams == null ? List.of() : List.copyOf(upstreams);
    }

    /** True when nothing but upstreams (and a plain-HTTP or automatic certificate) is set: the short form. */
    boolean shortForm() {
        return (tls == null || tls.equals("auto") || tls.equals("off")) && (policy == null || policy.equals("round_robin"))
                && (gzip == null || gzip) && maxBody == null && (securityHeaders == null || !securityHeaders)
                && healthPath == null;
    }

    /** This form under another name. */
    public SiteForm withName(String other) {
        return new SiteForm(other, upstreams, tls, cert, key, policy, gzip, maxBody, securityHeaders, healthPath);
    }
}
