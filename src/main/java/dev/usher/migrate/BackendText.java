package dev.usher.migrate;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A backend address as a source wrote it ({@code http://app:8080}, {@code app:8080}, {@code :8080}), made into
 * Usher's {@code host:port}, or the reason it cannot be: Usher speaks plain HTTP/1.1 to backends, so HTTPS, h2c and
 * unix sockets are out, and it forwards the request path as it came, so a backend URL with a path is out too.
 */
final class BackendText {
    /** The backend as Usher writes it, or why there is none. */
    record Backend(String address, String problem) {
        boolean ok() {
            return problem == null;
        }
    }

    private BackendText() {
    }

    /** {@code text}, whose host defaults to {@code defaultHost} when it is only {@code :port}. */
    static Backend parse(String text, String defaultHost) {
        String s = text.strip();
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.startsWith("https://")) {
            return problem("the backend is spoken to over HTTPS, which usher import does not convert yet (Usher has to: https://... "
                    + "with upstream_tls:; set it by hand)");
        }
        if (lower.startsWith("unix/") || lower.startsWith("unix:") || lower.startsWith("unix//")) {
            return problem("unix-socket backends are not supported");
        }
        if (lower.startsWith("h2c://") || lower.startsWith("grpc")) {
            return problem("HTTP/2 to backends is not supported");
        }
        if (s.startsWith(":")) {
            s = defaultHost + s;
        }
        if (!lower.startsWith("http://")) {
            s = "http://" + s;
        }
        URI uri;
        try {
            uri = new URI(s);
        } catch (URISyntaxException e) {
            return problem("\"" + text + "\" is not an address Usher can read");
        }
        if (uri.getHost() == null) {
            return problem("\"" + text + "\" has no host Usher can read");
        }
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/") || uri.getRawQuery() != null) {
            return problem("the backend URL has a path (" + path + "); Usher forwards each request's own path");
        }
        if (uri.getUserInfo() != null) {
            return problem("the backend URL carries a user name and password");
        }
        String host = uri.getHost();
        if (host.startsWith("[")) {
            host = host.toLowerCase(Locale.ROOT);
        }
        int port = uri.getPort() == -1 ? 80 : uri.getPort();
        return new Backend(host + ":" + port, null);
    }

    private static Backend problem(String why) {
        return new Backend(null, why);
    }
}
