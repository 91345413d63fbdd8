package dev.usher.testing;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Real BIND 9 ({@code named}, Debian {@code bind9}) as the authoritative servers of test zones, for DNS-01 tests:
 * a primary on {@code 127.0.0.1:PORT} that accepts RFC 2136 updates signed with a TSIG key made here by
 * {@code tsig-keygen}, and optionally a secondary on {@code [::1]:PORT} (the same port, so one
 * {@code nameserver_port} reaches both) that transfers each change only {@code transferDelay} after it happened, the
 * way a slow secondary does. Every zone's NS records name both servers ({@code ns1.ZONE0} A 127.0.0.1,
 * {@code ns2.ZONE0} AAAA ::1, ZONE0 being the first zone), so a propagation check that asks every authoritative
 * server asks both.
 *
 * <p>A CA asks a recursive resolver, never the authoritative servers themselves, and only a resolver follows a
 * CNAME into another zone (BIND serving both zones does not): {@link Builder#resolver()} adds a third {@code named}
 * on {@code 127.0.0.1:RESOLVER_PORT} that resolves the test zones by asking the secondary (or the primary when there
 * is none), caching nothing longer than a second; give it to {@code pebble -dnsserver}.
 *
 * <p>The delay: the primary sends no NOTIFY and the zones' refresh timers are an hour; a watcher here polls the
 * primary's SOA serials and, {@code transferDelay} after one changes, has the secondary refresh through
 * {@code rndc}. {@link #dig} and {@link #nsupdate} use the real {@code dig} and {@code nsupdate}. Processes are
 * stopped by their own handles in {@link #close()}. Missing binaries fail the test (never skip it).
 */
public final class Bind implements AutoCloseable {
    private static final Path NAMED = Path.of("/usr/sbin/named");
    private static final Path TSIG_KEYGEN = Path.of("/usr/sbin/tsig-keygen");
    private static final Path RNDC = Path.of("/usr/sbin/rndc");
    private static final Duration STARTUP = Duration.ofSeconds(20);
    private static final Pattern SECRET = Pattern.compile("secret\\s+\"([^\"]+)\"");

    private final Path dir;
    private final int port;
    private final int controlPort;
    private final String keyName;
    private final Map<String, List<String>> zones;
    private final Duration transferDelay;
    private final int resolverPort;
    private final List<Process> processes = new ArrayList<>();
    private Thread watcher;
    private volatile boolean stopping;

    private Bind(Path dir, int port, int controlPort, String keyName, Map<String, List<String>> zones,
                 Duration transferDelay, int resolverPort) {
        this.dir = dir;
        this.port = port;
        this.controlPort = controlPort;
        this.keyName = keyName;
        this.zones = zones;
        this.transferDelay = transferDelay;
        this.resolverPort = resolverPort;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The zones and whether there is a secondary. */
    public static final class Builder {
        private final Map<String, List<String>> zones = new LinkedHashMap<>();
        private Duration transferDelay;
        private String keyName = "usher-test";
        private boolean resolver;

        /** A zone with extra records in zone-file syntax, names relative to the zone: {@code "app IN A 127.0.0.1"}. */
        public Builder zone(String name, String... records) {
            zones.put(name, List.of(records));
            return this;
        }

        /** A secondary on {@code [::1]}, transferring each change {@code delay} after the primary made it. */
        public Builder secondary(Duration delay) {
            this.transferDelay = delay;
            return this;
        }

        /** A recursive resolver for the test zones, as a CA has in front of the authoritative servers. */
        public Builder resolver() {
            this.resolver = true;
            return this;
        }

        public Builder keyName(String name) {
            this.keyName = name;
            return this;
        }

        public Bind start() {
            for (Path binary : List.of(NAMED, TSIG_KEYGEN, RNDC)) {
                if (!Files.isExecutable(binary)) {
                    throw new IllegalStateException(binary + " is missing: the DNS-01 tests need BIND; run `apt-get "
                            + "install bind9 bind9-dnsutils` and run them again");
                }
            }
            if (zones.isEmpty()) {
                throw new IllegalArgumentException("at least one zone");
            }
            Bind bind = null;
            try {
                bind = new Bind(Files.createTempDirectory("bind"), Pebble.freePort(), Pebble.freePort(), keyName,
                        new LinkedHashMap<>(zones), transferDelay, resolver ? Pebble.freePort() : 0);
                bind.launch();
                return bind;
            } catch (IOException | RuntimeException e) {
                if (bind != null) {
                    bind.close();
                }
                throw new IllegalStateException("cannot start BIND: " + e.getMessage(), e);
            }
        }
    }

    private void launch() throws IOException {
        Files.writeString(keyFile(), run(TSIG_KEYGEN.toString(), "-a", "hmac-sha256", keyName));
        Files.writeString(dir.resolve("rndc.key"), run(TSIG_KEYGEN.toString(), "-a", "hmac-sha256", "rndc-key"));
        String first = zones.keySet().iterator().next();
        Path primary = Files.createDirectories(dir.resolve("primary"));
        StringBuilder primaryZones = new StringBuilder();
        StringBuilder secondaryZones = new StringBuilder();
        for (Map.Entry<String, List<String>> zone : zones.entrySet()) {
            StringBuilder file = new StringBuilder("$TTL 60\n@ IN SOA ns1." + first + ". hostmaster." + first
                    + ". 1 3600 600 86400 60\n@ IN NS ns1." + first + ".\n");
            if (transferDelay != null) {
                file.append("@ IN NS ns2.").append(first).append(".\n");
            }
            if (zone.getKey().equals(first)) {
                file.append("ns1 IN A 127.0.0.1\nns2 IN AAAA ::1\n");
            }
            zone.getValue().forEach(r -> file.append(r).append('\n'));
            Files.writeString(primary.resolve(zone.getKey() + ".zone"), file);
            primaryZones.append("zone \"").append(zone.getKey()).append("\" { type primary; file \"")
                    .append(primary.resolve(zone.getKey() + ".zone")).append("\"; allow-update { key \"")
                    .append(keyName).append("\"; }; allow-transfer { 127.0.0.1; ::1; }; };\n");
            secondaryZones.append("zone \"").append(zone.getKey()).append("\" { type secondary; file \"")
                    .append(dir.resolve("secondary").resolve(zone.getKey() + ".bk")).append("\"; primaries { 127.0.0.1 port ")
                    .append(port).append("; }; };\n");
        }
        Files.writeString(primary.resolve("named.conf"), options(primary, "listen-on port " + port
                + " { 127.0.0.1; }; listen-on-v6 { none; };") + "controls { };\ninclude \"" + keyFile() + "\";\n"
                + primaryZones);
        processes.add(named(primary));
        // The secondary only once the primary answers: a first transfer refused by a primary still starting is
        // retried by BIND minutes later, not within STARTUP (seen on a loaded machine).
        awaitServing("127.0.0.1", port);
        if (transferDelay != null) {
            Path secondary = Files.createDirectories(dir.resolve("secondary"));
            Files.writeString(secondary.resolve("named.conf"), options(secondary, "listen-on { none; }; "
                    + "listen-on-v6 port " + port + " { ::1; };") + "include \"" + dir.resolve("rndc.key") + "\";\n"
                    + "controls { inet 127.0.0.1 port " + controlPort + " allow { 127.0.0.1; } keys { \"rndc-key\"; };"
                    + " };\n" + secondaryZones);
            processes.add(named(secondary));
        }
        if (transferDelay != null) {
            awaitServing("::1", port);
            watcher = Thread.ofVirtual().name("bind-secondary-delay").start(this::delayTransfers);
        }
        if (resolverPort != 0) {
            Path resolving = Files.createDirectories(dir.resolve("resolver"));
            String upstream = transferDelay != null ? "::1" : "127.0.0.1";
            StringBuilder forwards = new StringBuilder();
            for (String zone : zones.keySet()) {
                forwards.append("zone \"").append(zone).append("\" { type forward; forward only; forwarders { ")
                        .append(upstream).append(" port ").append(port).append("; }; };\n");
            }
            Files.writeString(resolving.resolve("named.conf"), "options { directory \"" + resolving
                    + "\"; pid-file \"" + resolving.resolve("named.pid") + "\"; session-keyfile \""
                    + resolving.resolve("session.key") + "\"; managed-keys-directory \"" + resolving + "\"; "
                    + "listen-on port " + resolverPort + " { 127.0.0.1; }; listen-on-v6 { none; }; recursion yes; "
                    + "allow-recursion { any; }; dnssec-validation no; max-cache-ttl 1; max-ncache-ttl 1; "
                    + "notify no; };\ncontrols { };\n" + forwards);
            processes.add(named(resolving));
            awaitServing("127.0.0.1", resolverPort);
        }
    }

    /** {@code 127.0.0.1:PORT} of the recursive resolver (for {@code pebble -dnsserver}). */
    public String resolver() {
        if (resolverPort == 0) {
            throw new IllegalStateException("started without resolver()");
        }
        return "127.0.0.1:" + resolverPort;
    }

    private String options(Path d, String listen) {
        return "options { directory \"" + d + "\"; pid-file \"" + d.resolve("named.pid") + "\"; session-keyfile \""
                + d.resolve("session.key") + "\"; managed-keys-directory \"" + d + "\"; " + listen
                + " recursion no; dnssec-validation no; notify no; minimal-responses no; };\n";
    }

    private Process named(Path d) throws IOException {
        return new ProcessBuilder(NAMED.toString(), "-g", "-n", "1", "-c", d.resolve("named.conf").toString())
                .redirectErrorStream(true).redirectOutput(d.resolve("named.log").toFile()).start();
    }

    private void awaitServing(String host, int onPort) throws IOException {
        Instant deadline = Instant.now().plus(STARTUP);
        for (String zone : zones.keySet()) {
            while (serial(host, onPort, zone) < 0) {
                for (Process p : processes) {
                    if (!p.isAlive()) {
                        throw new IOException("named exited with " + p.exitValue() + ":\n" + logs());
                    }
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IOException("named does not serve " + zone + " on " + host + ":" + onPort + " within "
                            + STARTUP + ":\n" + logs());
                }
                sleep(50);
            }
        }
    }

    /** The zone's SOA serial on the server at {@code host}, or -1 when it does not answer with one. */
    public long serial(String host, String zone) {
        return serial(host, port, zone);
    }

    private static long serial(String host, int port, String zone) {
        try {
            SimpleResolver resolver = new SimpleResolver(new InetSocketAddress(host, port));
            resolver.setTimeout(Duration.ofMillis(500));
            Message answer = resolver.send(Message.newQuery(Record.newRecord(Name.fromString(zone + "."), Type.SOA,
                    DClass.IN)));
            for (Record r : answer.getSection(Section.ANSWER)) {
                if (r instanceof SOARecord soa) {
                    return soa.getSerial();
                }
            }
            return -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** The watcher: {@code transferDelay} after the primary's serial of a zone changes, the secondary refreshes it. */
    private void delayTransfers() {
        Map<String, Long> transferred = new HashMap<>();
        Map<String, Long> dueAt = new HashMap<>();
        zones.keySet().forEach(z -> transferred.put(z, serial("127.0.0.1", z)));
        while (!stopping) {
            for (String zone : zones.keySet()) {
                long now = serial("127.0.0.1", zone);
                if (now >= 0 && now != transferred.get(zone) && !dueAt.containsKey(zone)) {
                    dueAt.put(zone, System.nanoTime() + transferDelay.toNanos());
                }
                Long due = dueAt.get(zone);
                if (due != null && System.nanoTime() - due >= 0) {
                    dueAt.remove(zone);
                    transferred.put(zone, now);
                    try {
                        run(RNDC.toString(), "-k", dir.resolve("rndc.key").toString(), "-s", "127.0.0.1", "-p",
                                String.valueOf(controlPort), "refresh", zone);
                    } catch (IOException | RuntimeException e) {
                        if (!stopping) {
                            System.err.println("bind: rndc refresh " + zone + " failed: " + e.getMessage());
                        }
                    }
                }
            }
            sleep(100);
        }
    }

    /** The port both servers listen on. */
    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:PORT}, the primary. */
    public String primary() {
        return "127.0.0.1:" + port;
    }

    /** {@code [::1]:PORT}, the secondary (for {@code pebble -dnsserver}). */
    public String secondary() {
        return "[::1]:" + port;
    }

    /** The TSIG key file, as {@code tsig-keygen} wrote it. */
    public Path keyFile() {
        return dir.resolve("usher.key");
    }

    public String keyName() {
        return keyName;
    }

    /** The TSIG key's base64 secret. */
    public String keySecret() {
        try {
            Matcher m = SECRET.matcher(Files.readString(keyFile()));
            if (!m.find()) {
                throw new IllegalStateException("no secret in " + keyFile());
            }
            return m.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code dig @HOST -p PORT +short +norec NAME TYPE}: the answers, one per line (TXT values in quotes). */
    public List<String> dig(String host, String name, String type) {
        try {
            String out = run("dig", "@" + host, "-p", String.valueOf(port), "+short", "+norec", "+time=2",
                    "+tries=1", name, type);
            return out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends update commands ({@code update add ...}) for {@code zone} to the primary with {@code nsupdate -k}. */
    public void nsupdate(String zone, String... updates) {
        StringBuilder script = new StringBuilder("server 127.0.0.1 " + port + "\nzone " + zone + "\n");
        for (String u : updates) {
            script.append(u).append('\n');
        }
        script.append("send\n");
        try {
            Path file = Files.createTempFile(dir, "nsupdate", ".txt");
            Files.writeString(file, script);
            run("nsupdate", "-k", keyFile().toString(), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes a DNS-01 hook script as a user would write one for lego's exec provider ({@code present|cleanup FQDN
     * VALUE}) that updates the primary with {@code nsupdate} and this key, and then appends "ACTION FQDN" to
     * {@code log} when that is not null. Returns the executable file.
     */
    public Path writeNsupdateHook(Path file, Path log) throws IOException {
        Files.writeString(file, """
                #!/bin/sh
                set -eu
                case "$1" in
                  present) op="add $2 60" ;;
                  cleanup) op="delete $2" ;;
                  *) echo "unknown action $1" >&2; exit 2 ;;
                esac
                nsupdate -k %s <<EOF
                server 127.0.0.1 %d
                update $op TXT "$3"
                send
                EOF
                """.formatted(keyFile(), port) + (log == null ? "" : "echo \"$1 $2\" >> " + log + "\n"));
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    /** Waits until the secondary's serial of {@code zone} is the primary's (the delayed transfer happened). */
    public void awaitSecondary(String zone, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (serial("::1", zone) != serial("127.0.0.1", zone)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the secondary did not catch up on " + zone + " within " + timeout);
            }
            sleep(50);
        }
    }

    /** Both servers' logs. */
    public String logs() {
        StringBuilder all = new StringBuilder();
        for (String side : List.of("primary", "secondary", "resolver")) {
            Path log = dir.resolve(side).resolve("named.log");
            if (Files.exists(log)) {
                try {
                    all.append("--- ").append(side).append(" ---\n").append(Files.readString(log));
                } catch (IOException e) {
                    all.append(e);
                }
            }
        }
        return all.toString();
    }

    private static String run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " exited with " + p.exitValue() + ": " + text);
            }
            return text;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the servers (by their own handles) and removes the directory. Idempotent. */
    @Override
    public void close() {
        stopping = true;
        if (watcher != null) {
            try {
                watcher.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind
        }
    }
}
