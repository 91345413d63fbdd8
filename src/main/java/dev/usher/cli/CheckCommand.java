package dev.usher.cli;

import dev.usher.config.InsecureBackends;
import dev.usher.config.UsherConfig;

import java.io.PrintStream;
import java.nio.file.Path;

/** {@code usher check [--config FILE]}: validates a config file; exit 1 and every error listed when it is bad. */
final class CheckCommand {
    private final PrintStream out;
    private final PrintStream err;

    CheckCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String[] args) {
        CommandArguments options = CommandArguments.parse("check", args, false, 0, err);
        if (options == null) {
            return 2;
        }
        Path file = options.configOrDefault();
        UsherConfig config = CommandConfig.load(file, "usher", err, count -> file + ": " + count + " error(s)");
        if (config == null) {
            return 1;
        }
        out.println(file + ": OK, " + config.sites().size() + " site(s)");
        for (String warning : InsecureBackends.warnings(config)) {
            out.println("warning: " + warning);
        }
        return 0;
    }
}
