package dev.usher.config;

import java.util.List;
import java.util.Locale;

/**
 * Which names get a certificate from Usher's local CA under {@code tls: auto}: names no public CA can validate.
 * That is {@code localhost} and its subdomains, IP literals, and names under the special-use or private suffixes
 * {@code .test} (RFC 6761), {@code .internal}, {@code .lan}, {@code .home.arpa} (RFC 8375) and {@code .local}
 * (mDNS, RFC 6762).
 */
public final class LocalNames {
    private static final List<String> SUFFIXES = List.of(".test", ".internal", ".lan", ".home.arpa", ".local");

    private LocalNames() {
    }

    /**
     * True when {@code name} belongs to the local CA: {@code localhost}, {@code x.localhost}, {@code *.localhost},
     * an IPv4 or IPv6 literal, or a name with at least one label before one of the suffixes ({@code app.test},
     * {@code *.app.test}; not {@code test} itself, nor {@code *.test}, which browsers refuse as a wildcard over a
     * whole suffix). Case-insensitive; one trailing dot is ignored.
     */
    public static boolean isLocal(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith(".")) {
            n = n.substring(0, n.length() - 1);
        }
        if (isIpAddress(n)) {
            return true;
        }
        String base = n.startsWith("*.") ? n.substring(2) : n;
        if (base.isEmpty() || base.startsWith(".")) {
            return false;
        }
        if (base.equals("localhost") || base.endsWith(".localhost")) {
            return true;
        }
        for (String suffix : SUFFIXES) {
            if (base.endsWith(suffix) && base.length() > suffix.length()) {
                return true;
            }
        }
        return false;
    }

    /** True for an IPv4 dotted quad or an IPv6 address without brackets or zone; never asks a resolver. */
    public static boolean isIpAddress(String name) {
        if (name.indexOf(':') >= 0) {
            return isIpv6(name);
        }
        String[] parts = name.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIpv6(String name) {
        if (name.isEmpty() || !name.chars().allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
            return false;
        }
        try {
            return java.net.InetAddress.getByName(name) instanceof java.net.Inet6Address
                    || name.startsWith("::ffff:");
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
