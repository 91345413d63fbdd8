package dev.usher.tls;

import dev.usher.cert.CertifiedKey;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Key material for the QUIC contexts, and the trust anchors of all server contexts, made without the costs of the
 * builders' defaults: their in-memory key store is a PKCS12 one, which runs 10,000 rounds of PBKDF2 to put the key
 * in and again to take it out (a third of a second on a cold start), where a JKS store's protection costs next to
 * nothing; and they load the JDK's cacerts as trust anchors, which a server that asks for no client certificate
 * never uses.
 */
final class ServerKeys {
    /** No trust anchors: no client certificates are asked for. */
    static final X509Certificate[] NO_TRUST_ANCHORS = new X509Certificate[0];
    /** Holds no key: for a context that picks the real one by SNI (as QuicSslContextBuilder's own SNI context). */
    static final X509ExtendedKeyManager NONE = new NoKeys();

    private static final char[] NO_PASSWORD = new char[0];

    private ServerKeys() {
    }

    /** A key manager factory serving {@code key}, from an in-memory JKS store. */
    static KeyManagerFactory of(CertifiedKey key) {
        try {
            KeyStore store = KeyStore.getInstance("JKS");
            store.load(null, null);
            store.setKeyEntry("key", key.key(), NO_PASSWORD, key.chain().toArray(new X509Certificate[0]));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, NO_PASSWORD);
            return factory;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalArgumentException("the key cannot be used: " + e.getMessage(), e);
        }
    }

    private static final class NoKeys extends X509ExtendedKeyManager {
        private static final String[] NO_ALIASES = new String[0];

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return NO_ALIASES;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return NO_ALIASES;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return NO_TRUST_ANCHORS;
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return null;
        }
    }
}
