package dev.usher.rules;

import dev.usher.config.Cidr;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

import java.net.InetAddress;
import java.util.List;

/**
 * Finds the real client behind trusted proxies. Only a peer inside the trusted networks is believed; its
 * {@code CF-Connecting-IP} wins, else {@code X-Forwarded-For} is read from the right (the end nearest to Usher),
 * skipping our own trusted hops, because everything left of the first untrusted hop could have been written by the
 * client itself. Entries that are not IP literals are skipped; nothing here throws or asks DNS.
 */
final class ClientAddresses {
    static final AsciiString CF_CONNECTING_IP = AsciiString.cached("cf-connecting-ip");
    static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");

    private final IpNetworks trusted;

    ClientAddresses(List<Cidr> trustedProxies) {
        this.trusted = new IpNetworks(trustedProxies);
    }

    InetAddress resolve(InetAddress peer, HttpHeaders headers) {
        // The common case (no trusted proxies) allocates nothing.
        if (trusted.isEmpty() || !trusted.contains(peer.getAddress())) {
            return peer;
        }
        List<String> lists = headers.getAll(X_FORWARDED_FOR);
        if (lists.isEmpty()) {
            // A trusted edge that names the client only in CF-Connecting-IP. When X-Forwarded-For is there, its
            // right-to-left walk decides: a trusted load balancer of the user's own passes a client's
            // CF-Connecting-IP through untouched, while it does append the real client to X-Forwarded-For.
            String cloudflare = headers.get(CF_CONNECTING_IP);
            if (cloudflare != null) {
                InetAddress address = IpLiteral.parse(cloudflare, 0, cloudflare.length());
                if (address != null) {
                    return address;
                }
            }
        }
        InetAddress leftMost = null;
        for (int i = lists.size() - 1; i >= 0; i--) {
            String list = lists.get(i);
            int end = list.length();
            while (true) {
                int comma = list.lastIndexOf(',', end - 1);
                InetAddress address = IpLiteral.parse(list, comma + 1, end);
                if (address != null) {
                    if (!trusted.contains(address.getAddress())) {
                        return address;
                    }
                    leftMost = address;
                }
                if (comma < 0) {
                    break;
                }
                end = comma;
            }
        }
        // Every hop was one of ours: the left-most is the closest thing to a client we know of.
        return leftMost != null ? leftMost : peer;
    }
}
