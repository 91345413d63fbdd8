package dev.usher.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The arguments the config-reading commands share ({@code run}, {@code check}, {@code reload}, {@code renew},
 * {@code trust}): {@code --config FILE} (or {@code -c FILE}, {@code --config=FILE}), {@code --debug} where the
 * command has it, and up to a given number of plain words (a site name).
 *
 * @param config the file given, or null when none was
 * @param debug  true when {@code --debug} was given
 * @param words  the plain words, in order
 */
record CommandArguments(Path config, boolean debug, List<String> words) {
    /**
     * Reads {@code args}; null (after saying why on {@code err}) when one is not understood.
     *
     * @param command  the command's name, for messages
     * @param debugOk  whether {@code --debug} is accepted
     * @param maxWords how many plain words are accepted
     */
    static CommandArguments parse(String command, String[] args, boolean debugOk, int maxWords, PrintStream err) {
        Path config = null;
        boolean debug = false;
        List<String> words = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--config") || arg.equals("-c")) {
                if (i + 1 >= args.length) {
                    err.println("usher " + command + ": --config needs a file name");
                    return null;
                }
                config = Path.of(args[++i]);
            } else if (arg.startsWith("--config=")) {
                config = Path.of(arg.substring("--config=".length()));
            } else if (arg.equals("--debug") && debugOk) {
                debug = true;
            } else if (!arg.startsWith("-") && words.size() < maxWords) {
                words.add(arg);
            } else {
                err.println("usher " + command + ": unknown option \"" + arg + "\"");
                return null;
            }
        }
        return new CommandArguments(config, debug, List.copyOf(words));
    }

    /** The file given, or {@code ./usher.yaml}. */
    Path configOrDefault() {
        return config != null ? config : Cli.DEFAULT_CONFIG;
    }
}
