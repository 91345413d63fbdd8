package dev.usher.whoami;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.NetUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The default answer, in traefik/whoami's shape:
 * <pre>
 * Hostname: web-1
 * IP: 127.0.0.1
 * RemoteAddr: 127.0.0.1:54321
 * GET /path?x=1 HTTP/1.1
 * Host: app.example.com
 * (every other request header, in the order received)
 * </pre>
 * Every line ends with {@code \n}. The name is UTF-8; the request line and headers are written back byte for byte
 * (Netty decodes them as ISO-8859-1, so encoding them the same way restores the bytes received).
 */
final class WhoamiText {
    private WhoamiText() {
    }

    static byte[] render(Identity identity, SocketAddress remote, HttpRequest request) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        out.writeBytes(("Hostname: " + identity.name() + "\n").getBytes(StandardCharsets.UTF_8));
        StringBuilder text = new StringBuilder(512);
        for (String ip : identity.ips()) {
            text.append("IP: ").append(ip).append('\n');
        }
        text.append("RemoteAddr: ").append(format(remote)).append('\n');
        text.append(request.method().name()).append(' ').append(request.uri()).append(' ')
                .append(request.protocolVersion().text()).append('\n');
        for (Map.Entry<String, String> header : request.headers()) {
            text.append(header.getKey()).append(": ").append(header.getValue()).append('\n');
        }
        out.writeBytes(text.toString().getBytes(StandardCharsets.ISO_8859_1));
        return out.toByteArray();
    }

    /** {@code 127.0.0.1:54321} or {@code [::1]:54321}, as Go prints a remote address. */
    static String format(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            String ip = NetUtil.toAddressString(inet.getAddress());
            return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }
}
