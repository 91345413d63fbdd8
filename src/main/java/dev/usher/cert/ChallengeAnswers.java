package dev.usher.cert;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ACME challenge answers currently published: HTTP-01 key authorizations by token (served on the HTTP listener
 * at {@code /.well-known/acme-challenge/TOKEN}) and TLS-ALPN-01 certificates by host name (served to a TLS client
 * that offers only {@code acme-tls/1}). Written by the issuer thread, read by event loops: thread-safe.
 *
 * <p>In a fleet, answers this node publishes also go to the {@link Relay} (the shared storage), and answers other
 * nodes published arrive through {@link #acceptHttp01} and friends, so whichever node the CA reaches can answer. The
 * event loops only ever read the maps here: a lookup never waits on the network.
 */
public final class ChallengeAnswers {
    private final Map<String, String> http01 = new ConcurrentHashMap<>();
    private final Map<String, CertifiedKey> tlsAlpn01 = new ConcurrentHashMap<>();
    private volatile Relay relay = Relay.NONE;

    /** Where a fleet node sends the answers it publishes; it must have them readable by every node on return. */
    public interface Relay {
        Relay NONE = new Relay() {
            @Override
            public void http01(String token, String keyAuthorization) {
            }

            @Override
            public void tlsAlpn01(String name, CertifiedKey challengeCertificate) {
            }
        };

        /** {@code keyAuthorization} published for {@code token}; null: withdrawn. */
        void http01(String token, String keyAuthorization);

        /** {@code challengeCertificate} published for {@code name}; null: withdrawn. */
        void tlsAlpn01(String name, CertifiedKey challengeCertificate);
    }

    /** Sends what this node publishes from now on to {@code relay} as well. */
    public void relayTo(Relay relay) {
        this.relay = relay;
    }

    public void putHttp01(String token, String keyAuthorization) {
        http01.put(token, keyAuthorization);
        relay.http01(token, keyAuthorization);
    }

    public void removeHttp01(String token) {
        http01.remove(token);
        relay.http01(token, null);
    }

    /** The key authorization to answer for {@code token}, or null when none is published. */
    public String http01(String token) {
        return http01.get(token);
    }

    public void putTlsAlpn01(String name, CertifiedKey challengeCertificate) {
        tlsAlpn01.put(name.toLowerCase(Locale.ROOT), challengeCertificate);
        relay.tlsAlpn01(name.toLowerCase(Locale.ROOT), challengeCertificate);
    }

    public void removeTlsAlpn01(String name) {
        tlsAlpn01.remove(name.toLowerCase(Locale.ROOT));
        relay.tlsAlpn01(name.toLowerCase(Locale.ROOT), null);
    }

    /** The challenge certificate for {@code name}, or null when none is published. */
    public CertifiedKey tlsAlpn01(String name) {
        return tlsAlpn01.get(name.toLowerCase(Locale.ROOT));
    }

    /** Another node published {@code keyAuthorization} for {@code token} (null: withdrew it); not relayed back. */
    public void acceptHttp01(String token, String keyAuthorization) {
        if (keyAuthorization == null) {
            http01.remove(token);
        } else {
            http01.put(token, keyAuthorization);
        }
    }

    /** Another node published {@code certificate} for {@code name} (null: withdrew it); not relayed back. */
    public void acceptTlsAlpn01(String name, CertifiedKey certificate) {
        if (certificate == null) {
            tlsAlpn01.remove(name.toLowerCase(Locale.ROOT));
        } else {
            tlsAlpn01.put(name.toLowerCase(Locale.ROOT), certificate);
        }
    }
}
