package dev.usher.cli;

import dev.usher.config.ConfigError;
import dev.usher.config.ListenAddress;
import dev.usher.config.UsherConfig;
import dev.usher.json.JsonReader;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code usher reload [--config FILE]}: checks FILE here (the code path of {@code usher check}, so a bad file is
 * reported without bothering the server), then asks the running Usher, through its admin endpoint, to reload it.
 * Exit 0 when the new config serves; 1 with every error ({@code file:line:column: path: message}) when it does
 * not, and then the running Usher keeps its current config.
 */
final class ReloadCommand {
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
        UsherConfig config = CommandConfig.load(file, "usher reload", err, count -> "usher reload: not reloaded: "
                + count + " error(s) in " + file + "; the running Usher keeps its current config");
        if (config == null) {
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
                Map<?, ?> reloaded = object(body);
                Object summary = reloaded == null ? null : reloaded.get("summary");
                Object took = reloaded == null ? null : reloaded.get("took_ms");
                out.println("usher reload: " + file + ": reloaded: " + (summary instanceof String text ? text : body)
                        + (took instanceof Number ms ? " (took " + ms.longValue() + " ms)" : ""));
                return 0;
            }
            if (response.statusCode() == 422) {
                List<ConfigError> errors = configErrors(body);
                errors.forEach(e -> err.println(e.format()));
                err.println("usher reload: not reloaded: " + (errors.isEmpty() ? body : errors.size() + " error(s)")
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

    /** The admin endpoint's answer as a JSON object, or null when it is not one. */
    private static Map<?, ?> object(String body) {
        try {
            return JsonReader.parse(body) instanceof Map<?, ?> map ? map : null;
        } catch (JsonReader.BadJson e) {
            return null;
        }
    }

    /** The errors of a 422 answer: {@code [{"file":…,"line":3,"column":5,"path":…,"message":…}, …]}. */
    static List<ConfigError> configErrors(String body) {
        Object parsed;
        try {
            parsed = JsonReader.parse(body);
        } catch (JsonReader.BadJson e) {
            return List.of();
        }
        List<ConfigError> errors = new ArrayList<>();
        if (parsed instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof Map<?, ?> e) {
                    errors.add(new ConfigError(text(e.get("file")), number(e.get("line")), number(e.get("column")),
                            text(e.get("path")), text(e.get("message"))));
                }
            }
        }
        return errors;
    }

    private static String text(Object value) {
        return value instanceof String s ? s : "";
    }

    private static int number(Object value) {
        return value instanceof Number n ? n.intValue() : 0;
    }
}
