package dev.usher.config;

import java.util.List;

/**
 * Where a stream's connections go: its backends, how one is picked and watched, and whether each is told the client's
 * address first. A stream has one for connections in general ({@code to:}) and may have one per TLS server name
 * ({@code sni:}).
 *
 * @param upstreams     the backends, in file order; at least one
 * @param balancing     the policy and health settings (active checks connect over TCP: {@code health.path} is null)
 * @param proxyProtocol the PROXY protocol header each backend connection starts with
 */
public record StreamTarget(List<UpstreamAddress> upstreams, Balancing balancing, ProxyProtocol proxyProtocol) {
    public StreamTarget {
        upstreams = List.copyOf(upstreams);
    }
}
