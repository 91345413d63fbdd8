package dev.usher.cert;

import com.sun.net.httpserver.HttpServer;
import dev.usher.config.AcmeSettings;
import dev.usher.config.AcmeSettings.ChallengeType;
import dev.usher.testing.Pebble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedKeyManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link AcmeIssuer} against a real Pebble, answering its challenges from real HTTP and TLS servers. */
class AcmeIssuerTest {
    private static final ChallengeAnswers answers = new ChallengeAnswers();
    private static final List<String> servedTokens = new CopyOnWriteArrayList<>();
    private static final List<String> servedAlpnNames = new CopyOnWriteArrayList<>();
    private static HttpServer http;
    private static SSLServerSocket tls;
    private static Pebble pebble;

    @BeforeAll
    static void startServersAndPebble() throws Exception {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        http.createContext("/.well-known/acme-challenge/", exchange -> {
            String token = exchange.getRequestURI().getPath().substring("/.well-known/acme-challenge/".length());
            String answer = answers.http01(token);
            byte[] body = (answer == null ? "no such token" : answer).getBytes(StandardCharsets.US_ASCII);
            if (answer != null) {
                servedTokens.add(token);
            }
            exchange.sendResponseHeaders(answer == null ? 404 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        http.start();
        tls = startAlpnServer();
        pebble = Pebble.start(http.getAddress().getPort(), tls.getLocalPort());
    }

    @AfterAll
    static void stop() throws IOException {
        if (pebble != null) {
            pebble.close();
        }
        if (http != null) {
            http.stop(0);
        }
        if (tls != null) {
            tls.close();
        }
    }

    @Test
    void idIsFileNameSafeAndComesFromTheDirectoryUrl() {
        assertThat(AcmeIssuer.idFor(AcmeSettings.LETS_ENCRYPT)).isEqualTo("acme-v02.api.letsencrypt.org-directory");
        assertThat(AcmeIssuer.idFor(URI.create("https://localhost:14000/dir"))).isEqualTo("localhost-14000-dir");
        assertThat(AcmeIssuer.idFor(URI.create("https://ca.example/acme/v2/dir?x=1"))).isEqualTo("ca.example-acme-v2-dir");
    }

    @Test
    void issuesOverHttp01AndWithdrawsTheAnswer() throws Exception {
        int ordersBefore = pebble.orderCount();
        int tokensBefore = servedTokens.size();
        AcmeIssuer issuer = new AcmeIssuer(settings(ChallengeType.HTTP_01), new MemoryAccounts(), answers);

        CertifiedKey issued = issuer.issue("app.example.com");

        assertThat(dnsNames(issued.leaf())).containsExactly("app.example.com");
        assertChainsTo(issued.chain(), pebble.issuingRoots());
        assertKeyMatches(issued);
        assertThat(issued.key().getAlgorithm()).isIn("EC", "ECDSA");
        assertThat(pebble.orderCount()).isEqualTo(ordersBefore + 1);
        List<String> tokens = servedTokens.subList(tokensBefore, servedTokens.size());
        assertThat(tokens).as("Pebble fetched the key authorization from our server").isNotEmpty();
        assertThat(tokens).allSatisfy(t -> assertThat(answers.http01(t)).as("withdrawn").isNull());
    }

    @Test
    void issuesOverTlsAlpn01() throws Exception {
        AcmeIssuer issuer = new AcmeIssuer(settings(ChallengeType.TLS_ALPN_01), new MemoryAccounts(), answers);

        CertifiedKey issued = issuer.issue("alpn.example.com");

        assertThat(dnsNames(issued.leaf())).containsExactly("alpn.example.com");
        assertChainsTo(issued.chain(), pebble.issuingRoots());
        assertThat(servedAlpnNames).contains("alpn.example.com");
        assertThat(answers.tlsAlpn01("alpn.example.com")).as("withdrawn").isNull();
    }

    @Test
    void reusesOneAccountForOneAccountKey() throws Exception {
        MemoryAccounts store = new MemoryAccounts();
        AcmeIssuer first = new AcmeIssuer(settings(ChallengeType.HTTP_01), store, answers);
        AcmeIssuer second = new AcmeIssuer(settings(ChallengeType.HTTP_01), store, answers); // as after a restart

        first.issue("one.example.com");
        first.issue("two.example.com");
        URL location = first.accountLocation();
        second.issue("three.example.com");

        assertThat(location).isNotNull();
        assertThat(second.accountLocation()).isEqualTo(location);
        assertThat(store.created()).containsExactly(first.id());

        AcmeIssuer other = new AcmeIssuer(settings(ChallengeType.HTTP_01), new MemoryAccounts(), answers);
        other.issue("four.example.com");
        assertThat(other.accountLocation()).isNotEqualTo(location);
    }

    @Test
    void reportsTheCasProblemWhenNothingAnswersTheChallenge() throws Exception {
        int closed = Pebble.freePort();
        try (Pebble lonely = Pebble.start(closed, closed)) {
            AcmeSettings settings = new AcmeSettings(lonely.directory(), null, lonely.trustPem(),
                    List.of(ChallengeType.HTTP_01));
            AcmeIssuer issuer = new AcmeIssuer(settings, new MemoryAccounts(), answers);

            IssueException e = catchThrowableOfType(IssueException.class, () -> issuer.issue("down.example.com"));

            assertThat(e).isNotNull();
            assertThat(e.getMessage()).contains("down.example.com", "http-01", "urn:ietf:params:acme:error:connection")
                    .containsIgnoringCase("connection refused");
            assertThat(e.retryAfter()).isEmpty();
        }
    }

    @Test
    void saysQuicklyWhenTheCaCannotBeReached() {
        URI nowhere = URI.create("https://localhost:" + Pebble.freePort() + "/dir");
        AcmeIssuer issuer = new AcmeIssuer(new AcmeSettings(nowhere, null, pebble.trustPem(),
                List.of(ChallengeType.HTTP_01)), new MemoryAccounts(), answers);
        Instant start = Instant.now();

        assertThatThrownBy(() -> issuer.issue("app.example.com"))
                .isInstanceOf(IssueException.class)
                .hasMessageContaining("could not reach the ACME CA at " + nowhere + ": connection refused");
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void saysWhenTheCasCertificateIsNotTrusted() {
        AcmeIssuer issuer = new AcmeIssuer(new AcmeSettings(pebble.directory(), null, null,
                List.of(ChallengeType.HTTP_01)), new MemoryAccounts(), answers);

        assertThatThrownBy(() -> issuer.issue("app.example.com"))
                .isInstanceOf(IssueException.class)
                .hasMessageContaining("could not reach the ACME CA at " + pebble.directory())
                .hasMessageContaining("TLS failed")
                .hasMessageContaining("acme.trust");
    }

    @Test
    void issuesOnceTheCaComesUp() throws Exception {
        int port = Pebble.freePort();
        MemoryAccounts store = new MemoryAccounts();
        AcmeSettings settings = new AcmeSettings(URI.create("https://localhost:" + port + "/dir"), "ops@example.com",
                pebble.trustPem(), List.of(ChallengeType.HTTP_01));
        AcmeIssuer issuer = new AcmeIssuer(settings, store, answers);
        assertThatThrownBy(() -> issuer.issue("late.example.com")).hasMessageContaining("could not reach");

        try (Pebble late = Pebble.builder().acmePort(port).httpValidationPort(http.getAddress().getPort())
                .tlsValidationPort(tls.getLocalPort()).certificateValidity(Duration.ofMinutes(10)).start()) {
            // the fixture's test CA differs per instance: trust the new one
            AcmeIssuer again = new AcmeIssuer(new AcmeSettings(settings.directory(), settings.email(),
                    late.trustPem(), settings.challenges()), store, answers);
            CertifiedKey issued = again.issue("late.example.com");
            assertChainsTo(issued.chain(), late.issuingRoots());
            assertThat(issued.lifetime()).as("Pebble's certificateValidityPeriod").isBetween(Duration.ofMinutes(10).minusSeconds(2), Duration.ofMinutes(10));
        }
    }

    @Test
    void pebbleOffersNoRenewalInformationSoRenewalTimeIsEmpty() throws Exception {
        AcmeIssuer issuer = new AcmeIssuer(settings(ChallengeType.HTTP_01), new MemoryAccounts(), answers);
        CertifiedKey issued = issuer.issue("renew.example.com");

        assertThat(issuer.renewalTime(issued)).isEmpty();
    }

    private static AcmeSettings settings(ChallengeType... challenges) {
        return new AcmeSettings(pebble.directory(), null, pebble.trustPem(), List.of(challenges));
    }

    /** Each certificate is signed by the next; the last by one of the roots. */
    static void assertChainsTo(List<X509Certificate> chain, List<X509Certificate> roots) throws Exception {
        assertThat(chain).hasSizeGreaterThanOrEqualTo(2);
        for (int i = 0; i + 1 < chain.size(); i++) {
            chain.get(i).verify(chain.get(i + 1).getPublicKey());
            chain.get(i).checkValidity();
        }
        X509Certificate last = chain.get(chain.size() - 1);
        boolean verified = false;
        for (X509Certificate root : roots) {
            try {
                last.verify(root.getPublicKey());
                verified = true;
            } catch (java.security.GeneralSecurityException wrongRoot) {
                // try the next
            }
        }
        assertThat(verified).as("chain ends below Pebble's issuing root").isTrue();
    }

    private static void assertKeyMatches(CertifiedKey issued) throws Exception {
        byte[] data = "usher".getBytes(StandardCharsets.US_ASCII);
        Signature sign = Signature.getInstance("SHA256withECDSA");
        sign.initSign(issued.key());
        sign.update(data);
        byte[] signature = sign.sign();
        Signature verify = Signature.getInstance("SHA256withECDSA");
        verify.initVerify(issued.leaf().getPublicKey());
        verify.update(data);
        assertThat(verify.verify(signature)).as("the key belongs to the leaf").isTrue();
    }

    private static List<String> dnsNames(X509Certificate cert) throws Exception {
        return cert.getSubjectAlternativeNames().stream().filter(san -> (Integer) san.get(0) == 2)
                .map(san -> (String) san.get(1)).toList();
    }

    /** A TLS server that answers {@code acme-tls/1} handshakes with the certificate published for the SNI name. */
    private static SSLServerSocket startAlpnServer() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {new AnswersKeyManager()}, null, null);
        SSLServerSocket server = (SSLServerSocket) context.getServerSocketFactory()
                .createServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("alpn-server").start(() -> {
            while (!server.isClosed()) {
                try {
                    SSLSocket socket = (SSLSocket) server.accept();
                    Thread.ofVirtual().start(() -> handshake(socket));
                } catch (IOException closed) {
                    return;
                }
            }
        });
        return server;
    }

    private static void handshake(SSLSocket socket) {
        try (socket) {
            socket.setSoTimeout(5000);
            socket.setHandshakeApplicationProtocolSelector(
                    (s, offered) -> offered.contains("acme-tls/1") ? "acme-tls/1" : null);
            socket.startHandshake();
            String sni = sniName(socket.getSession());
            if (sni != null) {
                servedAlpnNames.add(sni);
            }
        } catch (IOException e) {
            // the validator closes the connection after the handshake
        }
    }

    private static String sniName(SSLSession session) {
        if (session instanceof ExtendedSSLSession extended) {
            for (SNIServerName name : extended.getRequestedServerNames()) {
                if (name instanceof SNIHostName host) {
                    return host.getAsciiName();
                }
            }
        }
        return null;
    }

    /** Serves the TLS-ALPN-01 certificate from {@link ChallengeAnswers} for the name the client asked for. */
    private static final class AnswersKeyManager extends X509ExtendedKeyManager {
        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            String sni = socket instanceof SSLSocket s ? sniName(s.getHandshakeSession()) : null;
            CertifiedKey answer = sni == null ? null : answers.tlsAlpn01(sni);
            return answer != null && answer.key().getAlgorithm().equals(keyType) ? sni : null;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            CertifiedKey answer = answers.tlsAlpn01(alias);
            return answer == null ? null : answer.chain().toArray(X509Certificate[]::new);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            CertifiedKey answer = answers.tlsAlpn01(alias);
            return answer == null ? null : answer.key();
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return null;
        }
    }

    /** An in-memory {@link AccountStore}: one EC P-256 account key per issuer id, made on first use. */
    static final class MemoryAccounts implements AccountStore {
        private final Map<String, KeyPair> keys = new ConcurrentHashMap<>();
        private final List<String> created = new CopyOnWriteArrayList<>();

        @Override
        public KeyPair accountKey(String issuerId) {
            return keys.computeIfAbsent(issuerId, id -> {
                try {
                    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
                    generator.initialize(new ECGenParameterSpec("secp256r1"));
                    created.add(id);
                    return generator.generateKeyPair();
                } catch (java.security.GeneralSecurityException e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        List<String> created() {
            return created;
        }
    }
}
