package dev.usher.testing;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import java.net.URI;

/** A real Usher started in-process from YAML text, on an ephemeral loopback port. */
public final class RunningUsher implements AutoCloseable {
    public final Usher usher;

    private RunningUsher(Usher usher) {
        this.usher = usher;
    }

    /** Starts Usher with {@code yaml}; a {@code listen:} section is added when the text has none. */
    public static RunningUsher start(String yaml) throws Exception {
        String text = yaml.contains("listen:") ? yaml : "listen: {http: \"127.0.0.1:0\", https: off}\n" + yaml;
        text = text.contains("admin:") ? text : "admin: off\n" + text;
        UsherConfig config = ConfigLoader.parse(text, "test.yaml");
        return new RunningUsher(Usher.start(config, 2));
    }

    public int port() {
        return usher.httpAddress().getPort();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    @Override
    public void close() {
        usher.close();
    }
}
