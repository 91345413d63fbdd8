package dev.usher.it;

import dev.usher.testing.AutheliaForwardAuthServer;
import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code forward_auth:} to an https:// auth server ({@link AutheliaForwardAuthServer} over HTTPS, a server started in
 * the test that follows Authelia's documented contract, with a certificate from a throwaway CA): trusted through
 * {@code tls: {ca}}, verified against the system's trust store without it (so refused: a 502, never let through), and
 * its certificate's name checked.
 */
class ForwardAuthHttpsTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("https-auth-app");
        BackendCerts certs = new BackendCerts();
        Path ca = certs.writeCa(dir);
        AutheliaForwardAuthServer authelia = servers.track(AutheliaForwardAuthServer.startHttps(
                context(certs.leaf("127.0.0.1", "sso.internal"))));
        usher = servers.usher("""
                sites:
                  trusted.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "https://127.0.0.1:%2$d", preset: authelia, tls: {ca: %3$s}}
                  named.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "https://127.0.0.1:%2$d", preset: authelia,
                                   tls: {ca: %3$s, server_name: sso.internal}}
                  wrongname.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "https://127.0.0.1:%2$d", preset: authelia,
                                   tls: {ca: %3$s, server_name: other.internal}}
                  untrusted.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "https://127.0.0.1:%2$d", preset: authelia}
                """.formatted(backend.port(), authelia.port(), ca));
    }

    /** An SSLContext serving {@code leaf}. */
    static SSLContext context(BackendCerts.Leaf leaf) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("auth", leaf.key(), new char[0], new Certificate[] {leaf.certificate()});
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    static RawHttp.Response get(String host, String cookie) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            return http.send("GET / HTTP/1.1\r\nHost: " + host + "\r\n"
                    + (cookie == null ? "" : "Cookie: " + cookie + "\r\n") + "\r\n").read();
        }
    }

    @Test
    void anAuthServerTrustedThroughItsCaIsAskedOverHttps() throws Exception {
        for (String host : new String[] {"trusted.example.com", "named.example.com"}) {
            RawHttp.Response in = get(host, "authelia_session=alice-session");
            assertThat(in.status()).as(host).isEqualTo(200);
            assertThat(in.body()).as(host).contains("https-auth-app").contains("Remote-User: alice");
            RawHttp.Response login = get(host, null);
            assertThat(login.status()).as(host).isEqualTo(302);
            assertThat(login.header("location")).as(host).startsWith(AutheliaForwardAuthServer.PORTAL);
        }
        long seen = backend.requestsSeen();
        assertThat(get("trusted.example.com", null).body()).doesNotContain("https-auth-app");
        assertThat(backend.requestsSeen()).isEqualTo(seen);
    }

    @Test
    void anAuthServerWhoseCertificateIsNotTrustedOrNamedLetsNothingThrough() throws Exception {
        long seen = backend.requestsSeen();
        for (String host : new String[] {"untrusted.example.com", "wrongname.example.com"}) {
            RawHttp.Response r = get(host, "authelia_session=alice-session");
            assertThat(r.status()).as(host).isEqualTo(502);
            assertThat(r.body()).as(host).doesNotContain("https-auth-app");
        }
        assertThat(backend.requestsSeen()).as("nothing reached the backend").isEqualTo(seen);
    }
}
