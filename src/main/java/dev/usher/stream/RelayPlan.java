package dev.usher.stream;

import dev.usher.config.ProxyProtocol;
import dev.usher.rules.Networks;
import dev.usher.upstream.UpstreamGroup;

import java.time.Duration;

/**
 * Where the connections of one stream (or one of its server names, or one passthrough site) go and how: compiled
 * once per config, shared by every connection.
 *
 * @param label          what logs and metrics call it: the stream's name ({@code ":2222"}) or the site's
 * @param kind           {@code tcp}, {@code udp} or {@code tls-passthrough}
 * @param backends       the backends and how one is picked
 * @param proxyProtocol  the PROXY header each backend connection starts with
 * @param connectTimeout how long connecting to one backend may take
 * @param idleTimeout    a connection with no byte either way for this long is closed
 * @param allow          when not empty, only these clients are relayed
 * @param deny           these clients are not relayed
 * @param accessLog      whether each connection gets an access log line
 */
record RelayPlan(String label, String kind, UpstreamGroup backends, ProxyProtocol proxyProtocol,
                 Duration connectTimeout, Duration idleTimeout, Networks allow, Networks deny, boolean accessLog) {
}
