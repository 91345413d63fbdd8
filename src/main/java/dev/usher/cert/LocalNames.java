package dev.usher.cert;

import java.util.List;
import java.util.Locale;
import org.bouncycastle.util.IPAddress;

/**
 * Which names Usher's local CA serves under {@code tls: auto}: names no public CA can validate. That is
 * {@code localhost} and its subdomains, IP literals, and names under the special-use or private suffixes
 * {@code .test} (RFC 6761), {@code .internal}, {@code .lan} and {@code .home.arpa} (RFC 8375).
 */
public final class LocalNames {
    private static final List<String> SUFFIXES = List.of(".test", ".internal", ".lan", ".home.arpa");

    private LocalNames() {
    }

    /**
     * True when {@code name} belongs to the local CA: {@code localhost}, {@code x.localhost}, {@code *.localhost},
     * an IPv4 or IPv6 literal, or a name with at least one label before one of the suffixes ({@code app.test},
     * {@code *.app.test}; not {@code test} itself, nor {@code *.test}, which browsers refuse as a wildcard over a
     * whole suffix). Case-insensitive; one trailing dot is ignored.
     */
    public static boolean coversName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith(".")) {
            n = n.substring(0, n.length() - 1);
        }
        if (isIpLiteral(n)) {
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
    public static boolean isIpLiteral(String name) {
        return IPAddress.isValidIPv4(name) || IPAddress.isValidIPv6(name);
    }
}
