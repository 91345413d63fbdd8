package dev.usher.config;

import java.time.Duration;
import java.util.List;

/**
 * One site: a host name (or a one-label wildcard) and the backends it forwards to, with its effective options
 * (the global defaults already applied).
 *
 * @param name            lower-case host name as written, without scheme: {@code app.example.com},
 *                        {@code *.dev.example.com}, {@code localhost}, {@code 127.0.0.1}
 * @param plainHttp       true when written with {@code http://}: served over plain HTTP only
 * @param upstreams       one or more backends, in file order
 * @param maxBody         largest request body in bytes, 0 for no limit
 * @param connectTimeout  time to connect to a backend
 * @param responseTimeout time to wait for a backend's response head and between its bytes
 * @param line            1-based line of the site's key in the file (0 when not from a file)
 * @param column          1-based column of the site's key in the file
 */
public record Site(String name, boolean plainHttp, List<UpstreamAddress> upstreams, long maxBody,
                   Duration connectTimeout, Duration responseTimeout, int line, int column) {
    public Site {
        upstreams = List.copyOf(upstreams);
    }

    /** True for a {@code *.example.com} name, which matches exactly one label in place of the star. */
    public boolean wildcard() {
        return name.startsWith("*.");
    }
}
