package dev.usher.cli;

import dev.usher.whoami.Whoami;

import java.io.PrintStream;
import java.io.UncheckedIOException;

/**
 * {@code usher whoami [--listen ADDR] [--name NAME]}: parses the arguments, starts a {@link Whoami}, prints where it
 * listens, and blocks until the process is stopped (a shutdown hook closes it).
 */
final class WhoamiCommand {
    static final String USAGE = """
            usage: usher whoami [--listen ADDR] [--name NAME]
              --listen ADDR  address to serve on: :9000 (every interface), 9000, 127.0.0.1:9000 or [::1]:9000
                             (default 127.0.0.1:9000)
              --name NAME    name reported as Hostname and in X-Whoami (default: this machine's host name)
            """;

    private WhoamiCommand() {
    }

    /**
     * The parsed command line.
     *
     * @param host the host to bind, {@code ""} for every interface (IPv6 without brackets)
     * @param port the port
     * @param name the name to report, or null for the host name
     * @param help whether {@code --help} was given
     */
    record Options(String host, int port, String name, boolean help) {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("usher whoami: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        if (options.help()) {
            out.print(USAGE);
            return 0;
        }
        Whoami whoami;
        try {
            whoami = Whoami.start(options.host(), options.port(), options.name());
        } catch (UncheckedIOException | IllegalArgumentException e) {
            err.println("usher whoami: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(whoami::close, "whoami-shutdown"));
        out.println("whoami listening on http://" + displayHost(options.host()) + ":" + whoami.port());
        out.flush();
        whoami.awaitClosed();
        return 0;
    }

    static Options parse(String[] args) {
        String listen = "127.0.0.1:9000";
        String name = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            switch (arg) {
                case "-h", "--help" -> {
                    return new Options("", 0, null, true);
                }
                case "--listen", "--name" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException(arg + " needs a value");
                        }
                        value = args[++i];
                    }
                    if (arg.equals("--listen")) {
                        listen = value;
                    } else {
                        name = value;
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
            }
        }
        if (name != null && name.isBlank()) {
            throw new IllegalArgumentException("--name must not be empty");
        }
        return listen(listen, name);
    }

    private static Options listen(String listen, String name) {
        String host;
        String port;
        int colon = listen.lastIndexOf(':');
        if (listen.startsWith("[")) {
            int close = listen.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException("--listen " + listen + ": write IPv6 as [::1]:9000");
            }
            host = listen.substring(1, close);
            port = listen.substring(close + 2);
        } else if (colon < 0) {
            host = "127.0.0.1";
            port = listen;
        } else if (listen.indexOf(':') != colon) {
            throw new IllegalArgumentException("--listen " + listen + ": write IPv6 as [::1]:9000");
        } else {
            host = listen.substring(0, colon);
            port = listen.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("--listen " + listen + ": port must be a number from 0 to 65535");
        }
        return new Options(host, p, name, false);
    }

    private static String displayHost(String host) {
        if (host.isEmpty()) {
            return "0.0.0.0";
        }
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }
}
