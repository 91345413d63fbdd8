package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads the two ways a site answers by itself: {@code redirect:} (a target URL, or {@code {to, status}}) and
 * {@code respond:} (a status, a body, or {@code {status, body, content_type}}).
 */
final class AnswerReader {
    static final List<String> PLACEHOLDERS = List.of("uri", "path", "query", "host", "scheme");
    static final Set<Integer> REDIRECT_STATUSES = Set.of(301, 302, 303, 307, 308);
    static final int DEFAULT_REDIRECT_STATUS = 308;
    static final String DEFAULT_CONTENT_TYPE = "text/plain; charset=utf-8";

    private static final String TARGET_EXAMPLE = "https://example.com{uri}";
    private static final Keys REDIRECT = Keys.of("to", "status")
            .withAliases(Map.of("target", "to", "url", "to", "location", "to", "code", "status",
                    "status_code", "status"));
    private static final Keys RESPOND = Keys.of("status", "body", "content_type")
            .withAliases(Map.of("code", "status", "status_code", "status", "text", "body", "content", "body",
                    "type", "content_type", "mime", "content_type", "mime_type", "content_type"));

    private final NodeWalker walker;
    private final Values values;

    AnswerReader(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    /** {@code redirect:}, or nothing when it has errors (reported). */
    Optional<Redirect> redirect(Field field) {
        Node node = field.value();
        if (node instanceof MappingNode) {
            Map<String, Field> fields = walker.fields(node, field.path(),
                    "a mapping such as {to: \"" + TARGET_EXAMPLE + "\", status: 301}", REDIRECT);
            Field to = fields.get("to");
            Optional<String> target = Optional.empty();
            if (to == null) {
                walker.error(field.keyNode(), field.path(), "missing \"to\": the URL to redirect to, such as "
                        + TARGET_EXAMPLE);
            } else {
                target = target(to);
            }
            Optional<Integer> status = Optional.ofNullable(fields.get("status")).map(this::redirectStatus)
                    .orElse(Optional.of(DEFAULT_REDIRECT_STATUS));
            return target.flatMap(t -> status.map(s -> new Redirect(t, s)));
        }
        if (node instanceof ScalarNode && !NodeWalker.isNull(node) && NodeWalker.STRING.contains(node.getTag())) {
            return target(field).map(t -> new Redirect(t, DEFAULT_REDIRECT_STATUS));
        }
        walker.typeError(node, field.path(), "a URL such as \"" + TARGET_EXAMPLE + "\", or {to: URL, status: 301}");
        return Optional.empty();
    }

    private Optional<String> target(Field field) {
        return walker.text(field.value(), field.path(), "a URL such as \"" + TARGET_EXAMPLE + "\"", NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> checkTarget(text)));
    }

    private Optional<Integer> redirectStatus(Field field) {
        Optional<Integer> status = values.integer(field, "a redirect status (301, 302, 303, 307 or 308)", 0,
                Integer.MAX_VALUE);
        if (status.isPresent() && !REDIRECT_STATUSES.contains(status.get())) {
            walker.error(field.value(), field.path(), "a redirect status is 301, 302, 303, 307 or 308; got "
                    + status.get() + (status.get() >= 200 && status.get() < 300 || status.get() >= 400
                    ? " (to answer with a status of your own, use respond:)" : ""));
            return Optional.empty();
        }
        return status;
    }

    /**
     * Checks a redirect target: an absolute http(s) URL (the scheme may be {@code {scheme}}) or a path starting with
     * a single "/", with only known placeholders.
     */
    static String checkTarget(String target) throws BadValue {
        if (target.isBlank()) {
            throw new BadValue("the redirect target is empty; write a URL such as " + TARGET_EXAMPLE);
        }
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                throw new BadValue("a redirect target cannot contain spaces, line breaks or other control characters;"
                        + " write a space as %20");
            }
            if (c > 0x7e) {
                throw new BadValue("a redirect target must be plain ASCII; percent-encode other characters "
                        + "(\"é\" is %C3%A9) and write international domain names in their xn-- form");
            }
        }
        checkPlaceholders(target);
        String lower = target.toLowerCase(Locale.ROOT);
        for (String scheme : List.of("https://", "http://", "{scheme}://")) {
            if (lower.startsWith(scheme)) {
                String rest = target.substring(scheme.length());
                int end = SiteNames.indexOfAny(rest, "/?#");
                if ((end < 0 ? rest : rest.substring(0, end)).isEmpty()) {
                    throw new BadValue("the redirect target has no host after \"" + scheme + "\"");
                }
                return target;
            }
        }
        if (target.startsWith("//")) {
            throw new BadValue("a target starting with // sends clients to another host; write it with its scheme, "
                    + "as in " + TARGET_EXAMPLE);
        }
        if (target.startsWith("/")) {
            return target;
        }
        int colon = target.indexOf(':');
        if (colon > 0 && target.substring(0, colon).chars().allMatch(Character::isLetter)) {
            throw new BadValue("only http:// and https:// redirects are supported; got \"" + target.substring(0, colon)
                    + ":\"");
        }
        throw new BadValue("a redirect target is a full URL (" + TARGET_EXAMPLE + ") or a path starting with / "
                + "(/new{uri}); got \"" + target + "\"");
    }

    private static void checkPlaceholders(String target) throws BadValue {
        String known = "{uri}, {path}, {query}, {host} or {scheme}";
        int i = 0;
        while (i < target.length()) {
            char c = target.charAt(i);
            if (c == '}') {
                throw new BadValue("\"}\" without a matching \"{\"; write a literal brace as %7D");
            }
            if (c != '{') {
                i++;
                continue;
            }
            int close = target.indexOf('}', i);
            int nextOpen = target.indexOf('{', i + 1);
            if (close < 0 || nextOpen >= 0 && nextOpen < close) {
                throw new BadValue("\"{\" without a matching \"}\"; placeholders are " + known
                        + ", and a literal brace is written %7B");
            }
            String name = target.substring(i + 1, close);
            if (!PLACEHOLDERS.contains(name)) {
                throw new BadValue(Suggestions.closest(name, PLACEHOLDERS, Map.of("url", "uri", "request_uri", "uri",
                                "hostname", "host", "args", "query", "query_string", "query", "proto", "scheme"))
                        .map(s -> "unknown placeholder {" + name + "}; did you mean {" + s + "}?")
                        .orElse("unknown placeholder {" + name + "}; use " + known));
            }
            i = close + 1;
        }
    }

    /** {@code respond:}, or nothing when it has errors (reported). */
    Optional<FixedAnswer> respond(Field field) {
        Node node = field.value();
        if (node instanceof ScalarNode && Tag.INT.equals(node.getTag())) {
            return answerStatus(field, "").map(s -> new FixedAnswer(s, "", DEFAULT_CONTENT_TYPE));
        }
        if (node instanceof ScalarNode && NodeWalker.STRING.contains(node.getTag())) {
            return Optional.of(new FixedAnswer(200, ((ScalarNode) node).getValue(), DEFAULT_CONTENT_TYPE));
        }
        if (!(node instanceof MappingNode)) {
            walker.typeError(node, field.path(), "a status such as 404, a body in quotes, or {status: 404, body: "
                    + "\"...\", content_type: text/plain}");
            return Optional.empty();
        }
        Map<String, Field> fields = walker.fields(node, field.path(), "a mapping of status, body and content_type",
                RESPOND);
        Optional<String> body = Optional.ofNullable(fields.get("body"))
                .map(f -> walker.text(f.value(), f.path(), "the body text (in quotes if it looks like a number)",
                        NodeWalker.STRING))
                .orElse(Optional.of(""));
        Optional<Integer> status = Optional.ofNullable(fields.get("status"))
                .map(f -> answerStatus(f, body.orElse("")))
                .orElse(Optional.of(200));
        Optional<String> type = Optional.ofNullable(fields.get("content_type"))
                .map(f -> walker.text(f.value(), f.path(), "a media type such as text/html", NodeWalker.STRING)
                        .flatMap(t -> values.parse(f.value(), f.path(), () -> checkContentType(t))))
                .orElse(Optional.of(DEFAULT_CONTENT_TYPE));
        if (body.isEmpty() || status.isEmpty() || type.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new FixedAnswer(status.get(), body.get(), type.get()));
    }

    /** A final status of 200 to 599 that can go with {@code body}; a redirect status belongs to redirect:. */
    private Optional<Integer> answerStatus(Field field, String body) {
        Optional<Integer> status = values.integer(field, "an HTTP status such as 404", 0, Integer.MAX_VALUE);
        if (status.isEmpty()) {
            return status;
        }
        int s = status.get();
        if (s < 200 || s > 599) {
            walker.error(field.value(), field.path(), "an answer's status is 200 to 599; got " + s);
            return Optional.empty();
        }
        if (REDIRECT_STATUSES.contains(s)) {
            walker.error(field.value(), field.path(), "a " + s + " answer needs a Location; use redirect: instead");
            return Optional.empty();
        }
        if ((s == 204 || s == 304) && !body.isEmpty()) {
            walker.error(field.value(), field.path(), "a " + s + " answer has no body; remove body: or use 200");
            return Optional.empty();
        }
        return status;
    }

    /** Checks a Content-Type value: {@code type/subtype}, optionally followed by {@code ; parameters}. */
    static String checkContentType(String text) throws BadValue {
        HeaderRules.checkValue(text);
        String media = text.split(";", 2)[0].strip();
        int slash = media.indexOf('/');
        boolean ok = slash > 0 && slash < media.length() - 1
                && media.chars().filter(c -> c != '/').allMatch(c -> HeaderRules.isTokenChar((char) c))
                && media.indexOf('/', slash + 1) < 0;
        if (!ok) {
            throw new BadValue("\"" + text + "\" is not a media type; write type/subtype, such as text/html; "
                    + "charset=utf-8");
        }
        return text;
    }
}
