package dev.usher.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * The facts about the running user that defaults depend on. Read once from system properties at the entry point and
 * passed down, so that the loader itself reads no global state and tests can pass their own.
 *
 * @param userName  the account name ({@code user.name})
 * @param userHome  the home directory ({@code user.home})
 * @param variables the environment, where {@code ${NAME}} secrets (an API token) and {@code PATH} (for an exec
 *                  hook) are looked up
 */
record HostEnvironment(String userName, String userHome, Map<String, String> variables) {
    HostEnvironment {
        variables = Map.copyOf(variables);
    }

    /** A user with an empty environment (tests). */
    HostEnvironment(String userName, String userHome) {
        this(userName, userHome, Map.of());
    }

    /** The environment of this JVM. */
    static HostEnvironment current() {
        return new HostEnvironment(System.getProperty("user.name", ""), System.getProperty("user.home", "/"),
                System.getenv());
    }

    /** {@code /var/lib/usher} for root, else {@code ~/.local/share/usher}. */
    Path defaultDataDir() {
        return userName.equals("root") ? Path.of("/var/lib/usher") : Path.of(userHome, ".local", "share", "usher");
    }

    /** {@code path} with a leading {@code ~} replaced by the home directory. */
    String expandHome(String path) {
        if (path.equals("~")) {
            return userHome;
        }
        return path.startsWith("~/") ? userHome + path.substring(1) : path;
    }
}
