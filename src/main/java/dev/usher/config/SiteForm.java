package dev.usher.config;

import java.util.List;

/**
 * A site as the admin form edits it: the options the form covers, each null when not written (the default).
 *
 * @param name               the site's name, without {@code http://}
 * @param upstreams          backend addresses as written, with their scheme when they have one
 *                           ({@code https://10.0.0.5:8006}, {@code h2c://grpc:50051})
 * @param tls                {@code auto}, {@code acme}, {@code internal}, {@code off}, {@code files} (then {@code cert}
 *                           and {@code key} are set), or null for auto
 * @param cert               the certificate chain file for {@code files}
 * @param key                the private key file for {@code files}
 * @param policy             load-balancing policy as written, or null
 * @param gzip               compression on/off, or null (on)
 * @param maxBody            largest request body as written ({@code 10MiB}), or null
 * @param securityHeaders    security headers on/off, or null (off)
 * @param healthPath         the active health check path, or null for none
 * @param paths              the site's {@code paths:} as the form edits them (a pattern, one upstream, the strip flag),
 *                           in file order
 * @param insecureSkipVerify {@code upstream_tls: {insecure_skip_verify: true}}, or null (off)
 * @param selfHosting        the self-hosting options the form covers ({@link SelfHosting#NONE} for none)
 */
public record SiteForm(String name, List<String> upstreams, String tls, String cert, String key, String policy,
                       Boolean gzip, String maxBody, Boolean securityHeaders, String healthPath, List<Path> paths,
                       Boolean insecureSkipVerify, SelfHosting selfHosting) {
    /** One path of the form: {@code /api/: {to: api:8080, strip_prefix: true}}. */
    public record Path(String pattern, String upstream, boolean stripPrefix) {
    }

    /**
     * The self-hosting options as the form edits them, each null when not written.
     *
     * @param root           {@code root:}: the folder a static site serves, instead of upstreams
     * @param maintenance    {@code maintenance: true}, or null (off)
     * @param waitForBackend {@code wait_for_backend:} as written ({@code 10s}), or null
     * @param authUrl        {@code forward_auth: {url: ...}}, or null for no forward auth
     * @param authPreset     {@code forward_auth: {preset: authelia|authentik}}, or null
     */
    public record SelfHosting(String root, Boolean maintenance, String waitForBackend, String authUrl,
                              String authPreset) {
        public static final SelfHosting NONE = new SelfHosting(null, null, null, null, null);

        /** True when none of them is set. */
        boolean isEmpty() {
            return root == null && (maintenance == null || !maintenance) && waitForBackend == null && authUrl == null;
        }
    }

    public SiteForm {
        upstreams = upstreams == null ? List.of() : List.copyOf(upstreams);
        paths = paths == null ? List.of() : List.copyOf(paths);
        selfHosting = selfHosting == null ? SelfHosting.NONE : selfHosting;
    }

    /** A form without paths, {@code upstream_tls} or self-hosting options. */
    public SiteForm(String name, List<String> upstreams, String tls, String cert, String key, String policy,
                    Boolean gzip, String maxBody, Boolean securityHeaders, String healthPath) {
        this(name, upstreams, tls, cert, key, policy, gzip, maxBody, securityHeaders, healthPath, List.of(), null,
                SelfHosting.NONE);
    }

    /** True when nothing but upstreams (and a plain-HTTP or automatic certificate) is set: the short form. */
    boolean shortForm() {
        return (tls == null || tls.equals("auto") || tls.equals("off")) && (policy == null || policy.equals("round_robin"))
                && (gzip == null || gzip) && maxBody == null && (securityHeaders == null || !securityHeaders)
                && healthPath == null && paths.isEmpty() && !skipsVerify() && selfHosting.isEmpty();
    }

    /** True when the backends' certificates are not checked. */
    public boolean skipsVerify() {
        return insecureSkipVerify != null && insecureSkipVerify;
    }

    /** This form under another name. */
    public SiteForm withName(String other) {
        return new SiteForm(other, upstreams, tls, cert, key, policy, gzip, maxBody, securityHeaders, healthPath,
                paths, insecureSkipVerify, selfHosting);
    }
}
