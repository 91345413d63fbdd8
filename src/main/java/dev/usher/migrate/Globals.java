package dev.usher.migrate;

import java.util.List;

/**
 * The top-level settings a source carries over, each null (or empty) when it has nothing to say.
 *
 * @param email          the ACME account's contact address
 * @param acmeCa         the ACME directory URL (or {@code letsencrypt-staging})
 * @param acmeTrust      PEM roots for the ACME CA's own HTTPS
 * @param listenHttp     the plain-HTTP address ({@code :8080})
 * @param listenHttps    the HTTPS address
 * @param trustedProxies networks whose {@code X-Forwarded-For} to believe
 */
public record Globals(String email, String acmeCa, String acmeTrust, String listenHttp, String listenHttps,
                      List<String> trustedProxies) {
    public static final Globals NONE = new Globals(null, null, null, null, null, List.of());

    public Globals {
        trustedProxies = List.copyOf(trustedProxies);
    }

    public Globals withEmail(String value) {
        return new Globals(value, acmeCa, acmeTrust, listenHttp, listenHttps, trustedProxies);
    }

    public Globals withAcme(String ca, String trust) {
        return new Globals(email, ca, trust, listenHttp, listenHttps, trustedProxies);
    }

    public Globals withListen(String http, String https) {
        return new Globals(email, acmeCa, acmeTrust, http, https, trustedProxies);
    }

    public Globals withTrustedProxies(List<String> networks) {
        return new Globals(email, acmeCa, acmeTrust, listenHttp, listenHttps, networks);
    }
}
