package dev.usher.cert;

import org.shredzone.acme4j.Identifier;
import org.shredzone.acme4j.challenge.Challenge;
import org.shredzone.acme4j.challenge.Http01Challenge;
import org.shredzone.acme4j.challenge.TlsAlpn01Challenge;

import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One challenge answer published in {@link ChallengeAnswers} for as long as the CA validates it: an HTTP-01 key
 * authorization under its token, or a TLS-ALPN-01 certificate (RFC 8737) under the name the validator sends as SNI.
 * For an IP identifier that is the reverse-DNS name (RFC 8738, section 6), so the certificate is published under it
 * as well as under the address itself.
 */
final class AcmeChallenge {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    /** Supplies the key for TLS-ALPN-01 certificates (RSA: acme4j signs them with SHA256withRSA). */
    interface KeySource {
        KeyPair get() throws GeneralSecurityException;
    }

    private final Runnable withdraw;

    private AcmeChallenge(Runnable withdraw) {
        this.withdraw = withdraw;
    }

    /** Publishes the answer to {@code challenge}, which must be of a type Usher answers. */
    static AcmeChallenge publish(Challenge challenge, Identifier identifier, ChallengeAnswers answers,
                                 KeySource keys) throws IssueException {
        if (challenge instanceof Http01Challenge http) {
            String token = http.getToken();
            answers.putHttp01(token, http.getAuthorization());
            return new AcmeChallenge(() -> answers.removeHttp01(token));
        }
        if (challenge instanceof TlsAlpn01Challenge tls) {
            CertifiedKey certificate;
            try {
                KeyPair key = keys.get();
                X509Certificate cert = tls.createCertificate(key, identifier);
                certificate = new CertifiedKey(List.of(cert), key.getPrivate());
            } catch (GeneralSecurityException | RuntimeException e) {
                throw new IssueException(identifier.getValue() + ": cannot make the tls-alpn-01 certificate: "
                        + e.getMessage(), e);
            }
            List<String> names = sniNames(identifier);
            for (String name : names) {
                answers.putTlsAlpn01(name, certificate);
            }
            return new AcmeChallenge(() -> names.forEach(answers::removeTlsAlpn01));
        }
        throw new IssueException(identifier.getValue() + ": Usher cannot answer " + challenge.getType()
                + " challenges", null);
    }

    /** Removes the published answer. */
    void withdraw() {
        withdraw.run();
    }

    static boolean isIpLiteral(String name) {
        return name.indexOf(':') >= 0 || IPV4.matcher(name).matches();
    }

    private static List<String> sniNames(Identifier identifier) {
        List<String> names = new ArrayList<>(List.of(identifier.getValue()));
        if (Identifier.TYPE_IP.equals(identifier.getType())) {
            names.add(reverseName(identifier.getIP()));
        }
        return names;
    }

    /** {@code 4.3.2.1.in-addr.arpa} / the nibble form under {@code ip6.arpa}. */
    static String reverseName(InetAddress address) {
        byte[] bytes = address.getAddress();
        StringBuilder name = new StringBuilder();
        if (bytes.length == 4) {
            for (int i = 3; i >= 0; i--) {
                name.append(bytes[i] & 0xff).append('.');
            }
            return name.append("in-addr.arpa").toString();
        }
        String hex = HexFormat.of().formatHex(bytes);
        for (int i = hex.length() - 1; i >= 0; i--) {
            name.append(hex.charAt(i)).append('.');
        }
        return name.append("ip6.arpa").toString();
    }
}
