package dev.usher;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Lets tests in other packages run a command of {@link Main} in-process. */
public final class MainAccess {
    private MainAccess() {
    }

    public static int run(List<String> args, OutputStream out, OutputStream err) {
        return new Main(new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args.toArray(String[]::new));
    }
}
