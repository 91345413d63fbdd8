package dev.usher.cli;

import dev.usher.config.UsherConfig;
import dev.usher.fleet.StorageCopy;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code usher storage copy --from data --to redis} (or back): moves certificates between the data directory and
 * the fleet's Redis named in the config's {@code storage:}, without ordering any.
 */
final class StorageCommand {
    private static final String USAGE = "usage: usher storage copy --from data --to redis [--config FILE]   "
            + "(or --from redis --to data)";

    private final PrintStream out;
    private final PrintStream err;

    StorageCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String[] args) {
        if (args.length == 0 || !args[0].equals("copy")) {
            err.println(USAGE);
            return 2;
        }
        String from = null;
        String to = null;
        List<String> rest = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if ((args[i].equals("--from") || args[i].equals("--to")) && i + 1 < args.length) {
                if (args[i].equals("--from")) {
                    from = args[++i];
                } else {
                    to = args[++i];
                }
            } else {
                rest.add(args[i]);
            }
        }
        boolean up = "data".equals(from) && "redis".equals(to);
        boolean down = "redis".equals(from) && "data".equals(to);
        if (!up && !down) {
            err.println(USAGE);
            return 2;
        }
        CommandArguments arguments = CommandArguments.parse("storage copy", rest.toArray(String[]::new), false, 0,
                err);
        if (arguments == null) {
            return 2;
        }
        UsherConfig config = CommandConfig.load(arguments.configOrDefault(), "usher storage copy", err,
                n -> "usher storage copy: nothing copied: the config has " + n + " error(s)");
        if (config == null) {
            return 1;
        }
        if (config.storage() == null) {
            err.println("usher storage copy: " + arguments.configOrDefault() + " has no storage: section; add "
                    + "storage: {redis: \"redis://HOST:6379/0\", encryption_key_file: FILE} first");
            return 1;
        }
        try (StorageCopy copy = new StorageCopy(config.storage(), config.dataDir())) {
            StorageCopy.Result result = up ? copy.toRedis() : copy.toData();
            String there = up ? copy.where() : config.dataDir().toString();
            out.println("usher storage copy: " + result.copied() + " certificate(s) copied to " + there + ", "
                    + result.kept() + " left as they were (the other side had them, or newer ones)"
                    + (up ? "; " + result.accounts() + " ACME account key(s) shared" : ""));
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("usher storage copy: " + e.getMessage());
            return 1;
        }
    }
}
