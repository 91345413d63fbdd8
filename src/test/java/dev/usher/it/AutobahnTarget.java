package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.whoami.Whoami;

/**
 * What bench/conformance/autobahn.sh points the Autobahn websocket suite at (its Maven plugin starts a "server" by
 * calling {@code main(port)}): not a test. With {@code -Dautobahn.target=usher} (the default), Usher on that port in
 * front of the whoami websocket echo; with {@code direct}, the echo itself on that port, for the comparison.
 */
public final class AutobahnTarget {
    private AutobahnTarget() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String target = System.getProperty("autobahn.target", "usher");
        if (target.equals("direct")) {
            Whoami.start("127.0.0.1", port, "echo");
            return;
        }
        Whoami echo = Whoami.start("127.0.0.1", 0, "echo");
        Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:%d", https: off}
                admin: off
                sites:
                  127.0.0.1: {to: "127.0.0.1:%d", timeouts: {websocket: 10m}}
                """.formatted(port, echo.port()), "autobahn.yaml"), 2);
    }
}
