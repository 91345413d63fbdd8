package dev.usher.testing;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** Looks at the certificate a TLS server presents, with the JDK's client: no trust decisions, just what was sent. */
public final class TlsProbe {
    private TlsProbe() {
    }

    /** The chain presented for {@code serverName} (null: no SNI) on 127.0.0.1:{@code port}. */
    public static List<X509Certificate> chain(int port, String serverName) throws IOException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AcceptAll()}, null);
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
                socket.setSoTimeout(10_000);
                if (serverName != null) {
                    SSLParameters parameters = socket.getSSLParameters();
                    parameters.setServerNames(List.of(new SNIHostName(serverName)));
                    socket.setSSLParameters(parameters);
                }
                socket.startHandshake();
                return java.util.Arrays.stream(socket.getSession().getPeerCertificates())
                        .map(c -> (X509Certificate) c).toList();
            }
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Lower-case hex SHA-256 of the leaf presented for {@code serverName}. */
    public static String leafSha256(int port, String serverName) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(chain(port, serverName).get(0).getEncoded()));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class AcceptAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
