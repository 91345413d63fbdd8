package dev.usher.cli;

import dev.usher.config.ConfigError;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.IntFunction;

/**
 * Loads the config file a command reads, the same way for every command: each error on its own line as
 * {@code file:line:column: path: message}, then the command's summary line; a file that cannot be read is one line.
 */
final class CommandConfig {
    private CommandConfig() {
    }

    /**
     * The config in {@code file}, or null after saying on {@code err} why not.
     *
     * @param prefix    how the command's messages start ({@code usher}, {@code usher reload})
     * @param afterErrors the summary printed after the errors of an invalid file, given their count
     */
    static UsherConfig load(Path file, String prefix, PrintStream err, IntFunction<String> afterErrors) {
        try {
            return ConfigLoader.load(file);
        } catch (ConfigException e) {
            printErrors(e, err);
            err.println(afterErrors.apply(e.errors().size()));
            return null;
        } catch (IOException e) {
            err.println(prefix + ": cannot read " + file + ": " + describe(e));
            return null;
        }
    }

    static void printErrors(ConfigException e, PrintStream err) {
        for (ConfigError error : e.errors()) {
            err.println(error.format());
        }
    }

    static String describe(IOException e) {
        return e instanceof NoSuchFileException ? "no such file" : e.getMessage();
    }
}
