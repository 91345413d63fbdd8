package dev.usher.rules;

import dev.usher.config.Cidr;

import java.net.InetAddress;
import java.util.List;

/**
 * A list of IP networks for code outside the HTTP rules: a stream's allow and deny lists, the load balancers allowed
 * to send PROXY protocol headers. Compiled once ({@link IpNetworks}); a test allocates nothing. Thread-safe.
 */
public final class Networks {
    private final IpNetworks networks;

    private Networks(List<Cidr> cidrs) {
        this.networks = new IpNetworks(cidrs);
    }

    public static Networks of(List<Cidr> cidrs) {
        return new Networks(cidrs);
    }

    public boolean isEmpty() {
        return networks.isEmpty();
    }

    /** True when {@code address} is in one of the networks (an IPv4 address never matches an IPv6 network). */
    public boolean contains(InetAddress address) {
        return address != null && networks.contains(address.getAddress());
    }

    /** True when {@code client} passes an allow list (empty: everyone) and is not in a deny list. */
    public static boolean admits(Networks allow, Networks deny, InetAddress client) {
        return (allow.isEmpty() || allow.contains(client)) && !deny.contains(client);
    }
}
