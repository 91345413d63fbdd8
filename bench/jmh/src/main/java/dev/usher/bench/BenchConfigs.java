package dev.usher.bench;

import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;

/** Configs and request texts shared by the benchmarks. */
public final class BenchConfigs {
    private BenchConfigs() {
    }

    /**
     * {@code exactSites} sites named {@code app0.example.com} … plus one wildcard site {@code *.dev.example.com},
     * each with its own backend port (nothing listens there: the benchmarks never connect).
     */
    public static UsherConfig sites(int exactSites, String siteExtras) {
        StringBuilder yaml = new StringBuilder("""
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                sites:
                """);
        for (int i = 0; i < exactSites; i++) {
            site(yaml, "app" + i + ".example.com", 20000 + i, siteExtras);
        }
        site(yaml, "\"*.dev.example.com\"", 19999, siteExtras);
        try {
            return ConfigLoader.parse(yaml.toString(), "bench.yaml");
        } catch (ConfigException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static void site(StringBuilder yaml, String name, int port, String extras) {
        if (extras == null || extras.isBlank()) {
            yaml.append("  ").append(name).append(": 127.0.0.1:").append(port).append('\n');
        } else {
            yaml.append("  ").append(name).append(":\n    to: 127.0.0.1:").append(port).append('\n');
            extras.lines().forEach(l -> yaml.append("    ").append(l).append('\n'));
        }
    }

    /** A typical browser GET (Chrome-like, 14 headers), as it arrives on the wire. */
    public static final String BROWSER_GET = "GET /dashboard/projects?tab=recent HTTP/1.1\r\n"
            + "Host: app0.example.com\r\n"
            + "Connection: keep-alive\r\n"
            + "Cache-Control: max-age=0\r\n"
            + "sec-ch-ua: \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"\r\n"
            + "sec-ch-ua-mobile: ?0\r\n"
            + "sec-ch-ua-platform: \"Linux\"\r\n"
            + "Upgrade-Insecure-Requests: 1\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0"
            + " Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
            + "Sec-Fetch-Site: same-origin\r\n"
            + "Sec-Fetch-Mode: navigate\r\n"
            + "Sec-Fetch-Dest: document\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Accept-Language: en-GB,en;q=0.9\r\n"
            + "Cookie: session=6f1c2a9e0b7d4c38a5e2f9d1; theme=dark\r\n"
            + "\r\n";
}
