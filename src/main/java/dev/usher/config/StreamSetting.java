package dev.usher.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One entry of {@code streams:}: a TCP or UDP port whose connections (or datagrams) Usher relays as they are to
 * backends, without reading them (beyond a TLS ClientHello when the stream routes by server name).
 *
 * @param name           the key as written, {@code ":2222"} or {@code ":27015/udp"}: what logs and metrics call it
 * @param listen         the address to bind
 * @param protocol       TCP or UDP
 * @param target         where connections go, or null when only {@code sni} routes (then an unknown name is closed)
 * @param sni            TLS server name (exact, or {@code *.example.com}) → where its connections go; TCP only;
 *                       empty when the stream does not look at the ClientHello
 * @param allow          when not empty, only clients in these networks are relayed
 * @param deny           clients in these networks are not relayed (checked after allow)
 * @param maxConnections the most connections (TCP) or client sessions (UDP) open at once
 * @param idleTimeout    a connection (or UDP session) with no bytes either way for this long is closed
 * @param connectTimeout how long connecting to one backend may take (TCP)
 * @param accessLog      whether each connection (or session) gets an access log line
 * @param line           1-based line of the stream's key in the file (0 when not from a file)
 * @param column         1-based column of the key
 */
public record StreamSetting(String name, ListenAddress listen, Protocol protocol, StreamTarget target,
                            Map<String, StreamTarget> sni, List<Cidr> allow, List<Cidr> deny, int maxConnections,
                            Duration idleTimeout, Duration connectTimeout, boolean accessLog, int line,
                            int column) {
    /** The transport a stream listens on. */
    public enum Protocol {
        TCP, UDP;

        /** {@code tcp}, {@code udp}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** TCP: 10 minutes without a byte either way closes the connection (nginx's proxy_timeout). */
    public static final Duration DEFAULT_TCP_IDLE = Duration.ofMinutes(10);
    /** UDP: a client silent for a minute has its session (and its backend socket) dropped. */
    public static final Duration DEFAULT_UDP_IDLE = Duration.ofMinutes(1);
    /** The most connections (or sessions) one stream keeps open at once, unless it says otherwise. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

    public StreamSetting {
        sni = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(sni));
        allow = List.copyOf(allow);
        deny = List.copyOf(deny);
    }

    /** Every target: the default one first, then those of the server names, in file order. */
    public List<StreamTarget> targets() {
        List<StreamTarget> all = new java.util.ArrayList<>();
        if (target != null) {
            all.add(target);
        }
        all.addAll(sni.values());
        return all;
    }

    /** This stream as it would be anywhere else in the file: a move is no change. */
    public StreamSetting withoutPosition() {
        return new StreamSetting(name, listen, protocol, target, sni, allow, deny, maxConnections, idleTimeout,
                connectTimeout, accessLog, 0, 0);
    }
}
