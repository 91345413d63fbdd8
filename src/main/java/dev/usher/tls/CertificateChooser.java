package dev.usher.tls;

import dev.usher.cert.CertificateSource;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.ChallengeAnswers;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * The policy behind the router: which certificate and context a parsed ClientHello gets. Free of Netty channel
 * mechanics so that the rules read in one place.
 *
 * <p>Never falls back to a default certificate: a certificate served to a name it does not cover would still show
 * the client every name it does cover.
 */
final class CertificateChooser {
    private static final System.Logger LOG = System.getLogger(CertificateChooser.class.getName());
    private static final List<String> ACME_ONLY = List.of(TlsContexts.ACME_TLS_1);

    private final CertificateSource source;
    private final ChallengeAnswers answers;
    private final TlsContexts contexts;

    CertificateChooser(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts) {
        this.source = source;
        this.answers = answers;
        this.contexts = contexts;
    }

    /**
     * @param hello        the parsed ClientHello
     * @param localAddress the connection's local IP address as a string, used as the name when there is no SNI;
     *                     null when the channel has none
     */
    Decision choose(ClientHello hello, String localAddress) {
        try {
            // RFC 8737: the validator offers exactly acme-tls/1. Such a client gets the challenge certificate or
            // nothing, never the site's certificate (which would not prove control to it anyway).
            if (hello.alpn().equals(ACME_ONLY)) {
                CertifiedKey challenge = hello.serverName() == null ? null : answers.tlsAlpn01(hello.serverName());
                return challenge == null
                        ? Decision.refuse(hello.serverName(), Decision.UNRECOGNIZED_NAME, "no TLS-ALPN-01 challenge")
                        : Decision.serve(hello.serverName(), contexts.challengeContext(challenge), true);
            }
            String name = hello.serverName() != null ? hello.serverName() : localAddress;
            if (name == null) {
                return Decision.refuse(null, Decision.HANDSHAKE_FAILURE, "no SNI and no local IP address");
            }
            CertifiedKey key = source.certificateFor(name);
            if (key == null) {
                int alert = hello.serverName() != null ? Decision.UNRECOGNIZED_NAME : Decision.HANDSHAKE_FAILURE;
                return Decision.refuse(name, alert, "no certificate");
            }
            return Decision.serve(name, contexts.serverContext(key), false);
        } catch (SSLException | RuntimeException e) {
            // A stored certificate or key that BoringSSL or the JDK refuses: an operator's problem, so WARNING.
            LOG.log(System.Logger.Level.WARNING, "TLS: cannot build a context for " + hello.serverName(), e);
            return Decision.refuse(hello.serverName(), Decision.INTERNAL_ERROR, "unusable certificate");
        }
    }
}
