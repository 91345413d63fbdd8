package dev.usher;

import dev.usher.cli.Cli;

/** The {@code usher} executable's entry point: the commands are in {@link Cli}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int code = new Cli(System.in, System.out, System.err).execute(args);
        if (code != 0 || !Cli.serves(args)) {
            System.exit(code);
        }
    }
}
