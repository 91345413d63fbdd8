package dev.usher.cli;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Lets tests in other packages run an {@code usher} command in-process. */
public final class CliAccess {
    private CliAccess() {
    }

    public static int run(List<String> args, OutputStream out, OutputStream err) {
        return run(args, "", out, err);
    }

    /** As {@link #run(List, OutputStream, OutputStream)}, with {@code stdin} as the command's standard input. */
    public static int run(List<String> args, String stdin, OutputStream out, OutputStream err) {
        return new Cli(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .execute(args.toArray(String[]::new));
    }
}
