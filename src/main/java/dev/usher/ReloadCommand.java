package dev.usher;

import dev.usher.config.ConfigError;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.ListenAddress;
import dev.usher.config.UsherConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code usher reload [--config FILE]}: checks FILE here (the code path of {@code usher check}, so a bad file is
 * reported without bothering the server), then asks the running Usher, through its admin endpoint, to reload it.
 * Exit 0 when the new config serves; 1 with every error ({@code file:line:column: path: message}) when it does
 * not, and then the running Usher keeps its current config.
 */
final class ReloadCommand {
    /** One string value of the admin API's JSON (escapes as {@code admin.Json} writes them). */
    private static final String STRING = "\"((?:[^\"\\\\]|\\\\.)*)\"";
    private static final Pattern ERROR = Pattern.compile("\\{\"file\":" + STRING + ",\"line\":(\\d+),\"column\":(\\d+)"
            + ",\"path\":" + STRING + ",\"message\":" + STRING + "}");
    private static final Pattern SUMMARY = Pattern.compile("\"summary\":" + STRING);
    private static final Pattern TOOK = Pattern.compile("\"took_ms\":(\\d+)");

    private final PrintStream out;
    private final PrintStream err;

    ReloadCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String[] args) {
        CommandArguments arguments = CommandArguments.parse("reload", args, false, 0, err);
        if (arguments == null) {
            err.println("usage: usher reload [--config FILE]");
            return 2;
        }
        Path file = arguments.configOrDefault();
        UsherConfig config;
        try {
            config = ConfigLoader.load(file);
        } catch (ConfigException e) {
            for (ConfigError error : e.errors()) {
                err.println(error.format());
            }
            err.println("usher reload: not reloaded: " + e.errors().size() + " error(s) in " + file
                    + "; the running Usher keeps its current config");
            return 1;
        } catch (IOException e) {
            err.println("usher reload: cannot read " + file + ": "
                    + (e instanceof NoSuchFileException ? "no such file" : e.getMessage()));
            return 1;
        }
        ListenAddress admin = config.admin();
        if (admin == null) {
            err.println("usher reload: the admin endpoint is off in " + file + " (admin: off), so the running Usher "
                    + "cannot be asked; it reloads by itself when the file is saved, or on SIGHUP (kill -HUP PID)");
            return 1;
        }
        return ask(file, admin);
    }

    private int ask(Path file, ListenAddress admin) {
        HttpRequest request = AdminRequests.post(admin, "/reload", Duration.ofMinutes(1));
        URI uri = request.uri();
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            String body = response.body().strip();
            if (response.statusCode() == 200) {
                Matcher summary = SUMMARY.matcher(body);
                Matcher took = TOOK.matcher(body);
                out.println("usher reload: " + file + ": reloaded: " + (summary.find() ? unescape(summary.group(1))
                        : body) + (took.find() ? " (took " + took.group(1) + " ms)" : ""));
                return 0;
            }
            if (response.statusCode() == 422) {
                Matcher m = ERROR.matcher(body);
                int count = 0;
                while (m.find()) {
                    count++;
                    err.println(dev.usher.reload.ReloadResult.format(new ConfigError(unescape(m.group(1)),
                            Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), unescape(m.group(4)),
                            unescape(m.group(5)))));
                }
                err.println("usher reload: not reloaded: " + (count == 0 ? body : count + " error(s)")
                        + "; the running Usher keeps its current config");
                return 1;
            }
            err.println("usher reload: " + response.statusCode() + " " + body);
            return 1;
        } catch (ConnectException e) {
            err.println("usher reload: no Usher answers at " + uri.getAuthority() + " (is it running with " + file
                    + "? If admin: was just changed, the running Usher still listens on the old address: send it "
                    + "SIGHUP, or save the file again)");
            return 1;
        } catch (IOException e) {
            err.println("usher reload: " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** Undoes the escapes of a JSON string as the admin endpoint writes them. */
    static String unescape(String json) {
        StringBuilder out = new StringBuilder(json.length());
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c != '\\' || i + 1 >= json.length()) {
                out.append(c);
                continue;
            }
            char e = json.charAt(++i);
            switch (e) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 < json.length()) {
                        out.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
                        i += 4;
                    }
                }
                default -> out.append(e);
            }
        }
        return out.toString();
    }
}
