package dev.usher.tls;

import io.netty.handler.ssl.SslContext;

/**
 * What the router does with one ClientHello: serve {@code context} under {@code serverName}, or refuse with a TLS
 * alert (or a bare close when the bytes were not TLS at all).
 *
 * @param serverName the SNI name or local address chosen for the connection; null when there was none
 * @param context    the context to serve with; null when refused
 * @param challenge  true for a TLS-ALPN-01 validation: close once the handshake completes (RFC 8737)
 * @param alert      the TLS alert description to send when refused, or -1 to close without one
 * @param reason     why it was refused, for the FINE log line; null when served
 * @param relay      for a passthrough site: the handler that relays the connection unopened; null otherwise
 */
record Decision(String serverName, SslContext context, boolean challenge, int alert, String reason,
                io.netty.channel.ChannelHandler relay) {
    /** unrecognized_name (RFC 6066): the client asked for a name Usher has no certificate for. */
    static final int UNRECOGNIZED_NAME = 112;
    /** handshake_failure: no name to go by, or a hello that cannot be served. */
    static final int HANDSHAKE_FAILURE = 40;
    /** decode_error: the ClientHello could not be parsed. */
    static final int DECODE_ERROR = 50;
    /** internal_error: the certificate exists but no context could be built from it. */
    static final int INTERNAL_ERROR = 80;

    static Decision serve(String serverName, SslContext context, boolean challenge) {
        return new Decision(serverName, context, challenge, -1, null, null);
    }

    static Decision refuse(String serverName, int alert, String reason) {
        return new Decision(serverName, null, false, alert, reason, null);
    }

    /** Not terminated: {@code relay} takes the connection, the ClientHello included. */
    static Decision relay(String serverName, io.netty.channel.ChannelHandler relay) {
        return new Decision(serverName, null, false, -1, null, relay);
    }

    boolean served() {
        return context != null || relay != null;
    }
}
