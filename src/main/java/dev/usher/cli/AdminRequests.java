package dev.usher.cli;

import dev.usher.config.ListenAddress;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * How the command line reaches a running Usher's admin endpoint: on this machine (an endpoint bound to every
 * interface is asked on 127.0.0.1), with the secret from {@code USHER_ADMIN_SECRET} when one is set.
 */
final class AdminRequests {
    /** The environment variable that holds the admin secret (the token itself, not its hash). */
    static final String SECRET_VARIABLE = "USHER_ADMIN_SECRET";

    private AdminRequests() {
    }

    /** A POST of nothing to {@code path} (which starts with {@code /}) on {@code admin}. */
    static HttpRequest post(ListenAddress admin, String path, Duration timeout) {
        String host = admin.host().isEmpty() || admin.host().equals("0.0.0.0") ? "127.0.0.1"
                : admin.host().equals("::") ? "[::1]"
                : admin.host().indexOf(':') >= 0 ? "[" + admin.host() + "]" : admin.host();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + host + ":" + admin.port() + path))
                .timeout(timeout).POST(HttpRequest.BodyPublishers.noBody());
        String secret = System.getenv(SECRET_VARIABLE);
        if (secret != null && !secret.isBlank()) {
            request.header("Authorization", "Bearer " + secret.strip());
        }
        return request.build();
    }
}
