package dev.usher.rules;

import io.netty.util.NetUtil;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Reads one address from a forwarding header entry, leniently: {@code 203.0.113.7}, {@code 203.0.113.7:5678},
 * {@code 2001:db8::1}, {@code [2001:db8::1]}, {@code [2001:db8::1]:443}, optionally in double quotes. Anything else
 * ({@code unknown}, host names, zone ids, garbage) gives null. Never throws and never asks DNS: the text is turned
 * into bytes by {@link NetUtil} and those into an address by {@link InetAddress#getByAddress(byte[])}.
 */
final class IpLiteral {
    private IpLiteral() {
    }

    /** The address in {@code text[start, end)}, or null. */
    static InetAddress parse(String text, int start, int end) {
        while (start < end && isSpace(text.charAt(start))) {
            start++;
        }
        while (end > start && isSpace(text.charAt(end - 1))) {
            end--;
        }
        if (end - start >= 2 && text.charAt(start) == '"' && text.charAt(end - 1) == '"') {
            start++;
            end--;
        }
        // Longer than any IPv6 literal with brackets and a port: not an address, and not worth looking at.
        if (start >= end || end - start > 64) {
            return null;
        }
        String host;
        if (text.charAt(start) == '[') {
            int close = text.indexOf(']', start);
            if (close < 0 || close >= end || !isPortOrNothing(text, close + 1, end)) {
                return null;
            }
            host = text.substring(start + 1, close);
            if (host.indexOf(':') < 0) {
                return null;
            }
        } else {
            int colon = text.indexOf(':', start);
            boolean oneColon = colon >= 0 && colon < end && text.lastIndexOf(':', end - 1) == colon;
            if (oneColon) {
                // IPv4 with a port; a bare IPv6 literal has at least two colons.
                if (!isPortOrNothing(text, colon, end)) {
                    return null;
                }
                host = text.substring(start, colon);
                if (host.indexOf('.') < 0) {
                    return null;
                }
            } else {
                host = text.substring(start, end);
            }
        }
        if (host.indexOf('%') >= 0) {
            return null;
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(host);
        if (bytes == null) {
            return null;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static boolean isPortOrNothing(String text, int from, int end) {
        if (from == end) {
            return true;
        }
        if (text.charAt(from) != ':' || end - from < 2 || end - from > 6) {
            return false;
        }
        for (int i = from + 1; i < end; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
