package dev.usher.rules;

import dev.usher.config.Cidr;

import java.util.List;

/**
 * A list of networks compiled to masks over {@link IpBits}, so that a membership test is a few long comparisons and
 * allocates nothing. As with {@link Cidr#contains}, an IPv4 address never matches an IPv6 network and vice versa.
 */
final class IpNetworks {
    private final boolean[] v6;
    private final long[] netHi;
    private final long[] netLo;
    private final long[] maskHi;
    private final long[] maskLo;

    IpNetworks(List<Cidr> networks) {
        int n = networks.size();
        v6 = new boolean[n];
        netHi = new long[n];
        netLo = new long[n];
        maskHi = new long[n];
        maskLo = new long[n];
        for (int i = 0; i < n; i++) {
            Cidr cidr = networks.get(i);
            byte[] address = cidr.network().getAddress();
            int prefix = cidr.prefix();
            v6[i] = address.length == 16;
            if (v6[i]) {
                maskHi[i] = prefix <= 0 ? 0 : prefix >= 64 ? -1L : -1L << (64 - prefix);
                maskLo[i] = prefix <= 64 ? 0 : -1L << (128 - prefix);
            } else {
                // Only the low 32 bits hold an IPv4 address; the ::ffff: marker is left out of the mask.
                maskHi[i] = 0;
                maskLo[i] = prefix <= 0 ? 0 : (-1L << (32 - prefix)) & 0xFFFF_FFFFL;
            }
            netHi[i] = IpBits.hi(address) & maskHi[i];
            netLo[i] = IpBits.lo(address) & maskLo[i];
        }
    }

    boolean isEmpty() {
        return v6.length == 0;
    }

    /** True when the address (4 or 16 bytes) is in one of the networks. */
    boolean contains(byte[] address) {
        return contains(address.length == 16, IpBits.hi(address), IpBits.lo(address));
    }

    boolean contains(boolean isV6, long hi, long lo) {
        for (int i = 0; i < v6.length; i++) {
            if (v6[i] == isV6 && (hi & maskHi[i]) == netHi[i] && (lo & maskLo[i]) == netLo[i]) {
                return true;
            }
        }
        return false;
    }
}
