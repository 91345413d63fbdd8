package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads the pages visitors see when something is wrong: {@code error_pages:} (per site or at the top level) and a
 * site's {@code maintenance:}. Page files are read now, at most {@link ErrorPage#MAX_SIZE} each; a missing or
 * unreadable one is an error at its line.
 */
final class PagesReader {
    private static final Pattern STATUS = Pattern.compile("[45][0-9][0-9]");
    private static final Pattern STATUS_CLASS = Pattern.compile("[45]xx", Pattern.CASE_INSENSITIVE);
    private static final String PAGES_EXAMPLE = "{502: /srv/errors/502.html, 5xx: /srv/errors/oops.html}";
    private static final Keys MAINTENANCE = Keys.of("file", "allow", "retry_after", "page")
            .withAliases(Map.ofEntries(Map.entry("flag", "file"), Map.entry("flag_file", "file"), Map.entry("when", "file"), Map.entry("path", "file"), Map.entry("allow_from", "allow"), Map.entry("whitelist", "allow"), Map.entry("except", "allow"), Map.entry("ips", "allow"), Map.entry("retry", "retry_after"), Map.entry("retryafter", "retry_after"), Map.entry("html", "page"), Map.entry("error_page", "page")));
    private static final String MAINTENANCE_EXAMPLE = "true, a flag file whose presence turns it on, or "
            + "{file: /srv/app/MAINTENANCE, allow: [10.0.0.0/8], retry_after: 5m, page: /srv/errors/maintenance.html}";

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;

    PagesReader(NodeWalker walker, Values values, Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
    }

    /** {@code error_pages:}: status or class to a page file, and {@code intercept}. */
    ErrorPageSet errorPages(Field section) {
        if (NodeWalker.isNull(section.value())) {
            return ErrorPageSet.NONE;
        }
        Map<Integer, ErrorPage> byStatus = new HashMap<>();
        Map<Integer, ErrorPage> byClass = new HashMap<>();
        boolean intercept = false;
        for (Field f : walker.entries(section.value(), section.path(), "a mapping such as " + PAGES_EXAMPLE,
                "status")) {
            String key = f.key().strip();
            if (key.equals("intercept")) {
                intercept = values.bool(f).orElse(false);
            } else if (STATUS.matcher(key).matches()) {
                page(f).ifPresent(p -> byStatus.put(Integer.parseInt(key), p));
            } else if (STATUS_CLASS.matcher(key).matches()) {
                page(f).ifPresent(p -> byClass.put(key.charAt(0) - '0', p));
            } else {
                walker.error(f.keyNode(), f.path(), "\"" + key + "\" is not an error status; use a status from 400 "
                        + "to 599 (502), a class (4xx, 5xx) or intercept, as in " + PAGES_EXAMPLE);
            }
        }
        return new ErrorPageSet(byStatus, byClass, intercept);
    }

    /** {@code maintenance:}, or nothing for {@code false} (and after an error). */
    Optional<Maintenance> maintenance(Field field) {
        if (field.value() instanceof ScalarNode scalar && Tag.BOOL.equals(scalar.getTag())) {
            return values.bool(field).filter(on -> on)
                    .map(on -> new Maintenance(null, List.of(), Maintenance.DEFAULT_RETRY_AFTER, null));
        }
        if (field.value() instanceof ScalarNode scalar && List.of("true", "false", "yes", "no", "on", "off")
                .contains(scalar.getValue().strip().toLowerCase(Locale.ROOT))) {
            values.bool(field); // reports the quoted or YAML 1.1 word
            return Optional.empty();
        }
        if (!(field.value() instanceof MappingNode)) {
            return flagFile(field).map(file -> new Maintenance(file, List.of(), Maintenance.DEFAULT_RETRY_AFTER,
                    null));
        }
        Map<String, Field> fields = walker.fields(field.value(), field.path(), MAINTENANCE_EXAMPLE, MAINTENANCE);
        Optional<Path> file = Optional.ofNullable(fields.get("file")).map(this::flagFile).orElse(Optional.empty());
        Optional<List<Cidr>> allow = Optional.ofNullable(fields.get("allow"))
                .map(f -> values.cidrs(f, true, "")).orElse(Optional.of(List.of()));
        Optional<Duration> retry = Optional.ofNullable(fields.get("retry_after")).map(values::duration)
                .orElse(Optional.of(Maintenance.DEFAULT_RETRY_AFTER));
        Optional<ErrorPage> page = Optional.ofNullable(fields.get("page")).flatMap(this::page);
        if (fields.containsKey("file") && file.isEmpty() || allow.isEmpty() || retry.isEmpty()
                || fields.containsKey("page") && page.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Maintenance(file.orElse(null), allow.get(), retry.get(), page.orElse(null)));
    }

    /** A flag file: it need not exist now (its presence is the switch), but its folder must. */
    private Optional<Path> flagFile(Field field) {
        return values.path(field, baseDir, MAINTENANCE_EXAMPLE).flatMap(p -> values.parse(field.value(),
                field.path(), () -> {
                    Path folder = p.getParent();
                    if (folder == null || !Files.isDirectory(folder)) {
                        throw new BadValue("the folder of the maintenance flag file " + p + " does not exist");
                    }
                    return p;
                }));
    }

    /** A page file, read now. */
    private Optional<ErrorPage> page(Field field) {
        return values.path(field, baseDir, "a page file such as /srv/errors/502.html")
                .flatMap(p -> values.parse(field.value(), field.path(), () -> read(p)));
    }

    static ErrorPage read(Path file) throws BadValue {
        try {
            if (!Files.isRegularFile(file)) {
                throw new BadValue("the page file " + file + " does not exist");
            }
            long size = Files.size(file);
            if (size > ErrorPage.MAX_SIZE) {
                throw new BadValue("the page file " + file + " is " + size + " bytes; a page is at most 1 MiB");
            }
            return new ErrorPage(file, Files.readAllBytes(file), contentType(file));
        } catch (IOException e) {
            throw new BadValue("cannot read the page file " + file + ": " + e.getMessage());
        }
    }

    private static String contentType(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".txt")) {
            return "text/plain; charset=utf-8";
        }
        if (name.endsWith(".json")) {
            return "application/json";
        }
        return "text/html; charset=utf-8";
    }
}
