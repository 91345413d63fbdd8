package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;

import java.net.URI;

/** A real Usher started in-process from YAML text, on an ephemeral loopback port. */
final class RunningUsher implements AutoCloseable {
    final Usher usher;

    private RunningUsher(Usher usher) {
        this.usher = usher;
    }

    /** Starts Usher with {@code yaml}; a {@code listen:} section is added when the text has none. */
    static RunningUsher start(String yaml) throws Exception {
        String text = yaml.contains("listen:") ? yaml : "listen: {http: \"127.0.0.1:0\", https: off}\n" + yaml;
        text = text.contains("admin:") ? text : "admin: off\n" + text;
        UsherConfig config = ConfigLoader.parse(text, "test.yaml");
        return new RunningUsher(Usher.start(config, 2));
    }

    int port() {
        return usher.httpAddress().getPort();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    @Override
    public void close() {
        usher.close();
    }
}
