package dev.usher.config;

import java.time.Duration;
import java.util.List;

/**
 * Single sign-on by forward auth ({@code forward_auth:}): before a request is served, the auth server is asked
 * whether it may be; a 2xx lets it through with {@code copyHeaders} copied from the answer, anything else goes back
 * to the client as the auth server gave it.
 *
 * @param server       the auth server (plain HTTP, through the same keep-alive pools as backends)
 * @param uri          the path and query asked on it, such as {@code /api/authz/forward-auth}
 * @param copyHeaders  response headers of a 2xx copied onto the request; the client's own copies of these names are
 *                     always removed first
 * @param timeout      how long the auth server may take to answer (then 504)
 * @param preset       {@code authelia}, {@code authentik} or null: where the defaults came from
 * @param outpostPath  a path prefix whose requests go to the auth server itself, unchecked (Authentik's outpost,
 *                     {@code /outpost.goauthentik.io/}), or null
 */
public record ForwardAuth(UpstreamAddress server, String uri, List<String> copyHeaders, Duration timeout,
                          String preset, String outpostPath) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    public ForwardAuth {
        copyHeaders = List.copyOf(copyHeaders);
    }
}
