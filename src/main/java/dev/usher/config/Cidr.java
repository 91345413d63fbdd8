package dev.usher.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IP network such as {@code 10.0.0.0/8}, {@code 2001:db8::/32}, or a single address ({@code 203.0.113.7}, which is
 * a /32 or /128).
 *
 * @param network the network address (host bits zero)
 * @param prefix  the prefix length in bits
 */
public record Cidr(InetAddress network, int prefix) {
    /** True when {@code address} is inside this network (an IPv4 address never matches an IPv6 network). */
    public boolean contains(InetAddress address) {
        byte[] net = network.getAddress();
        byte[] addr = address.getAddress();
        if (net.length != addr.length) {
            return false;
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (net[i] != addr[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (net[full] & mask) == (addr[full] & mask);
    }

    /** The network as written in a config file: {@code 10.0.0.0/8}, {@code 2001:db8::/32} (RFC 5952 form). */
    @Override
    public String toString() {
        byte[] b = network.getAddress();
        return (b.length == 4 ? network.getHostAddress() : ipv6(b)) + "/" + prefix;
    }

    /** Lower-case hex groups without leading zeros; the longest run of two or more zero groups (first) as ::. */
    private static String ipv6(byte[] b) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (b[2 * i] & 0xff) << 8 | b[2 * i + 1] & 0xff;
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    /**
     * Parses a literal (no DNS): {@code 10.0.0.0/8}, {@code ::1}, {@code 192.0.2.1}; host bits are cleared. An
     * IPv4-mapped IPv6 form ({@code ::ffff:10.0.0.0/104}) is read as the IPv4 network it stands for, because Java
     * presents such clients as IPv4 addresses.
     *
     * @throws IllegalArgumentException with a message fit for the user when {@code text} is not an address or range
     */
    public static Cidr parse(String text) {
        String s = text.strip();
        int slash = s.indexOf('/');
        String host = slash < 0 ? s : s.substring(0, slash);
        if (!HostNames.isIpv4(host) && !HostNames.isIpv6(host)) {
            throw new IllegalArgumentException("\"" + text + "\" is not an IP address or CIDR range "
                    + "(such as 10.0.0.0/8 or 2001:db8::/32)");
        }
        byte[] bytes;
        try {
            // Only literals get here, so InetAddress never turns to DNS.
            bytes = InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not an IP address or CIDR range "
                    + "(such as 10.0.0.0/8 or 2001:db8::/32)", e);
        }
        boolean mapped = host.indexOf(':') >= 0 && bytes.length == 4;
        int written = mapped ? 128 : bytes.length * 8;
        int prefix = written;
        if (slash >= 0) {
            String digits = s.substring(slash + 1);
            prefix = digits.isEmpty() || digits.length() > 3 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')
                    ? -1 : Integer.parseInt(digits);
            if (prefix < 0 || prefix > written) {
                throw new IllegalArgumentException("the prefix length in \"" + text + "\" must be a number from 0 to "
                        + written);
            }
            if (mapped && prefix < 96) {
                throw new IllegalArgumentException("\"" + text + "\" is an IPv4-mapped address; its prefix length "
                        + "must be 96 to 128, or write the IPv4 network itself");
            }
        }
        if (mapped) {
            prefix -= 96;
        }
        int max = bytes.length * 8;
        for (int bit = prefix; bit < max; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        try {
            return new Cidr(InetAddress.getByAddress(bytes), prefix);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
