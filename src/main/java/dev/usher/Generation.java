package dev.usher;

import dev.usher.admin.AdminListener;
import dev.usher.cert.CertManager;
import dev.usher.config.UsherConfig;
import dev.usher.observe.AccessLog;
import dev.usher.route.RouteTable;
import dev.usher.server.HttpListener;
import dev.usher.server.QuicListener;
import dev.usher.rules.Networks;
import dev.usher.stream.StreamTable;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything that belongs to one config: its two route tables, the certificate manager, the listeners and the
 * access log. Immutable. {@link GenerationBuilder} makes one from the generation in service; {@link Usher} puts it in
 * service with one reference swap and then retires the previous one with {@link #closeAllBut}. What a reload leaves
 * as it was (a listener whose address did not change, the certificate manager, an unchanged access log) is the
 * same object in both generations, so it is handed over rather than closed.
 *
 * @param config       the config this generation serves; null only for {@link #NONE}
 * @param plain        the plain-HTTP listener's routes (HTTPS sites answer ACME HTTP-01 and redirect there)
 * @param secure       the HTTPS and HTTP/3 listeners' routes; null while Usher has never served HTTPS. Kept after
 *                     HTTPS is switched off, so that connections still open on the old listener see the new sites
 * @param certificates the certificate manager; null while Usher has never served HTTPS
 * @param http         the plain-HTTP listener; null only for {@link #NONE}
 * @param https        the HTTPS listener over TCP, or null when HTTPS is off
 * @param quic         the HTTP/3 listener (UDP), or null when HTTP/3 is off or cannot be served here
 * @param admin        the admin endpoint, or null when it is off
 * @param accessLog    the access log in service, or null
 * @param streams      the compiled streams and passthrough sites; {@link StreamTable#EMPTY} when there are none
 * @param streamSockets the streams' bound sockets, one per stream
 * @param proxyHeaders the load balancers whose connections start with a PROXY header ({@code listen.proxy_protocol})
 */
record Generation(UsherConfig config, RouteTable plain, RouteTable secure, CertManager certificates,
                  HttpListener http, HttpListener https, QuicListener quic, AdminListener admin,
                  AccessLog accessLog, StreamTable streams, List<StreamSocket> streamSockets,
                  Networks proxyHeaders) {
    /** What is in service before the first config: nothing. */
    static final Generation NONE = new Generation(null, null, null, null, null, null, null, null, null,
            StreamTable.EMPTY, List.of(), Networks.of(List.of()));

    Generation {
        streamSockets = List.copyOf(streamSockets);
    }

    /** A generation that holds nothing but {@code accessLog}: {@code closeAllBut} it closes everything else. */
    static Generation holding(AccessLog accessLog) {
        return new Generation(null, null, null, null, null, null, null, null, accessLog, StreamTable.EMPTY,
                List.of(), Networks.of(List.of()));
    }

    /** The route tables, the HTTPS one first (its routes have the backends of HTTPS sites). */
    List<RouteTable> tables() {
        List<RouteTable> tables = new ArrayList<>(2);
        if (secure != null) {
            tables.add(secure);
        }
        if (plain != null) {
            tables.add(plain);
        }
        return tables;
    }

    /** The listeners over TCP, streams' included (not HTTP/3 nor UDP streams, whose sockets carry their peers). */
    List<AutoCloseable> tcpListeners() {
        List<AutoCloseable> listeners = new ArrayList<>(3);
        for (AutoCloseable listener : new AutoCloseable[] {admin, http, https}) {
            if (listener != null) {
                listeners.add(listener);
            }
        }
        for (StreamSocket socket : streamSockets) {
            if (socket.tcp() != null) {
                listeners.add(socket.tcp());
            }
        }
        return listeners;
    }

    /**
     * Lets the listeners this generation bound (those {@code previous} does not hold) accept connections: they were
     * bound during the prepare, but a request reaches a listener's routes only once this generation serves.
     */
    void startAccepting(Generation previous) {
        if (http != null && !previous.holds(http)) {
            http.startAccepting();
        }
        if (https != null && !previous.holds(https)) {
            https.startAccepting();
        }
        if (quic != null && !previous.holds(quic)) {
            quic.startAccepting();
        }
        if (admin != null && !previous.holds(admin)) {
            admin.startAccepting();
        }
        for (StreamSocket socket : streamSockets) {
            if (!previous.streamSockets.contains(socket)) {
                socket.startAccepting();
            }
        }
    }

    /**
     * Closes every part of this generation that {@code kept} does not also hold: listeners stop accepting (the
     * connections they accepted stay open), route tables stop their health checks, and a certificate manager or
     * access log no longer in use stops. Retiring the old generation after a swap is {@code old.closeAllBut(new)};
     * abandoning a prepared one is {@code prepared.closeAllBut(old)}; a stop is {@code closeAllBut(NONE)}.
     */
    void closeAllBut(Generation kept) {
        for (AutoCloseable listener : new AutoCloseable[] {admin, http, https, quic}) {
            if (listener != null && !kept.holds(listener)) {
                closeQuietly(listener);
            }
        }
        for (StreamSocket socket : streamSockets) {
            if (!kept.streamSockets.contains(socket)) {
                closeQuietly(socket);
            }
        }
        if (streams != kept.streams) {
            streams.close();
        }
        // Tables are made anew for every config; only their backend groups are shared (reference-counted).
        for (RouteTable table : tables()) {
            if (table != kept.plain && table != kept.secure) {
                table.close();
            }
        }
        if (certificates != null && certificates != kept.certificates) {
            certificates.close();
        }
        if (accessLog != null && accessLog != kept.accessLog) {
            accessLog.close();
        }
    }

    private boolean holds(AutoCloseable listener) {
        return listener == admin || listener == http || listener == https || listener == quic;
    }

    private static void closeQuietly(AutoCloseable listener) {
        try {
            listener.close();
        } catch (Exception e) {
            System.getLogger(Generation.class.getName()).log(System.Logger.Level.DEBUG,
                    "closing a listener of a retired generation: " + e);
        }
    }
}
