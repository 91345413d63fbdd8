package dev.usher.whoami;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Who this backend says it is: the name it reports (as {@code Hostname:} and in {@code X-Whoami}) and the IP
 * addresses of the machine's interfaces, listed like traefik/whoami does. Computed once at start.
 *
 * @param name the reported name; never contains control characters, so it is a valid header value
 * @param ips  the addresses of every interface that is up, IPv6 in RFC 5952 form without zone ({@code ::1}), in the order the OS lists them
 */
record Identity(String name, List<String> ips) {

    Identity {
        ips = List.copyOf(ips);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("whoami name must not contain control characters: " + name);
            }
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("whoami name must not be empty");
        }
    }

    /** The identity for {@code name}, or for the machine's host name when {@code name} is null. */
    static Identity of(String name) {
        return new Identity(name != null ? name : machineName(), interfaceAddresses());
    }

    private static String machineName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static List<String> interfaceAddresses() {
        List<String> ips = new ArrayList<>();
        try {
            for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
                if (nic.isUp()) {
                    nic.inetAddresses().forEach(a -> ips.add(NetUtil.toAddressString(a)));
                }
            }
        } catch (SocketException e) {
            // Fall through: the list is informational only.
        }
        if (ips.isEmpty()) {
            ips.add("127.0.0.1");
        }
        return ips;
    }
}
