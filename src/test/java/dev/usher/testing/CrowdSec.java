package dev.usher.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real CrowdSec local API (Debian's {@code crowdsec} 1.4, unpacked by {@code scripts/crowdsec-for-tests.sh}, never
 * installed) run with {@code -no-cs}: the API only, no log acquisition, no central API. Its configuration, SQLite
 * database and credentials live in a folder of the test's, so a {@link #stop} and {@link #start} keep its decisions.
 * Decisions are added and deleted with the real {@code cscli}, the bouncer key comes from {@code cscli bouncers add}.
 */
public final class CrowdSec implements AutoCloseable {
    private final Path root;
    private final Path dir;
    private final int port;
    private Daemon daemon;

    private CrowdSec(Path root, Path dir, int port) {
        this.root = root;
        this.dir = dir;
        this.port = port;
    }

    /** Sets up a local API in {@code dir} on a free loopback port and starts it. */
    public static CrowdSec start(Path dir) throws IOException {
        Path root = unpacked();
        CrowdSec api = new CrowdSec(root, dir, Daemon.freeTcpPort());
        api.configure();
        api.start();
        // cscli decisions add goes through the local API as a machine (watcher) with these credentials.
        api.cscli("machines", "add", "tester", "--auto", "-f", dir.resolve("config/local_api_credentials.yaml")
                .toString());
        Path credentials = dir.resolve("config/local_api_credentials.yaml");
        Files.writeString(credentials, Files.readString(credentials)
                .replaceFirst("(?m)^url: .*$", "url: http://127.0.0.1:" + api.port + "/"));
        return api;
    }

    /** The unpacked package (made once per machine by the script; a clear failure when it cannot be had). */
    private static Path unpacked() {
        Path script = Path.of("scripts/crowdsec-for-tests.sh").toAbsolutePath();
        Command made = Command.run(300, List.of("bash", script.toString()));
        String[] lines = made.output().strip().split("\n");
        if (made.exitCode() != 0) {
            throw new IllegalStateException("no CrowdSec for the tests: " + made.output());
        }
        return Path.of(lines[lines.length - 1]);
    }

    private void configure() throws IOException {
        Path etc = root.resolve("etc/crowdsec");
        for (String sub : List.of("config", "data", "hub", "notifications", "plugins", "acquis.d")) {
            Files.createDirectories(dir.resolve(sub));
        }
        Files.copy(etc.resolve("profiles.yaml"), dir.resolve("config/profiles.yaml"));
        Files.copy(etc.resolve("simulation.yaml"), dir.resolve("config/simulation.yaml"));
        Command.run(30, List.of("cp", "-r", etc.resolve("patterns").toString(), dir.resolve("config").toString()));
        Files.writeString(dir.resolve("config/acquis.yaml"), "");
        Files.writeString(dir.resolve("hub/.index.json"), "{}");
        Files.writeString(config(), """
                common: {daemonize: false, log_media: stdout, log_level: info, working_dir: .}
                config_paths:
                  config_dir: %1$s/config/
                  data_dir: %1$s/data/
                  simulation_path: %1$s/config/simulation.yaml
                  hub_dir: %1$s/hub/
                  index_path: %1$s/hub/.index.json
                  notification_dir: %1$s/notifications/
                  plugin_dir: %1$s/plugins/
                crowdsec_service: {acquisition_path: %1$s/config/acquis.yaml, acquisition_dir: %1$s/acquis.d}
                cscli: {output: human, color: "no"}
                db_config: {type: sqlite, db_path: %1$s/data/crowdsec.db, use_wal: false, log_level: info}
                api:
                  client: {credentials_path: %1$s/config/local_api_credentials.yaml}
                  server:
                    log_level: info
                    listen_uri: 127.0.0.1:%2$d
                    profiles_path: %1$s/config/profiles.yaml
                    trusted_ips: [127.0.0.1]
                prometheus: {enabled: false}
                """.formatted(dir.toAbsolutePath(), port));
    }

    private Path config() {
        return dir.resolve("config/config.yaml");
    }

    /** Starts (again) the local API, on the same port and database. */
    public void start() {
        daemon = Daemon.start(List.of(root.resolve("usr/bin/crowdsec").toString(), "-c", config().toString(),
                "-no-cs")).awaitTcp(port);
    }

    /** Stops the local API (its database stays). */
    public void stop() throws IOException {
        if (daemon != null) {
            daemon.close();
            daemon = null;
        }
    }

    public int port() {
        return port;
    }

    /** A new bouncer's API key ({@code cscli bouncers add NAME -o raw}). */
    public String addBouncer(String name) {
        return cscli("bouncers", "add", name, "-o", "raw").strip();
    }

    /** {@code cscli decisions add --ip|--range VALUE --type TYPE --duration 1h}. */
    public void addDecision(String value, String type) {
        cscli("decisions", "add", value.contains("/") ? "--range" : "--ip", value, "--type", type,
                "--duration", "1h");
    }

    /** {@code cscli decisions delete --ip|--range VALUE}. */
    public void deleteDecision(String value) {
        cscli("decisions", "delete", value.contains("/") ? "--range" : "--ip", value);
    }

    private String cscli(String... args) {
        List<String> command = new ArrayList<>(List.of(root.resolve("usr/bin/cscli").toString(), "-c",
                config().toString()));
        command.addAll(List.of(args));
        Command done = Command.run(60, command);
        if (done.exitCode() != 0) {
            throw new AssertionError("cscli " + String.join(" ", args) + " failed: " + done.output());
        }
        return done.output().lines().filter(l -> !l.startsWith("time=")).reduce("", (a, b) -> a + b + "\n");
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
