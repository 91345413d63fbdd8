package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads header edits ({@code headers:} and {@code request_headers:} in a site), Caddy-style: {@code Name: value}
 * sets, {@code +Name: value} adds a value, {@code -Name:} removes (its value is ignored). Rules keep file order,
 * which is the order they are applied in.
 */
final class HeaderRules {
    static final String EXAMPLE = "{X-Frame-Options: DENY, +Link: \"</a.css>; rel=preload\", -Server: ~}";

    /** Header names no rule may touch (lower case), each with the reason shown to the user. */
    private static final Map<String, String> UNTOUCHABLE = Map.of(
            "connection", "a hop-by-hop header, which Usher manages for each connection itself",
            "keep-alive", "a hop-by-hop header, which Usher manages for each connection itself",
            "proxy-connection", "a hop-by-hop header, which Usher manages for each connection itself",
            "transfer-encoding", "a hop-by-hop header; Usher chooses the framing of each message itself",
            "te", "a hop-by-hop header, which Usher manages for each connection itself",
            "trailer", "a hop-by-hop header; Usher chooses the framing of each message itself",
            "upgrade", "a hop-by-hop header; websocket upgrades are passed through as they are",
            "content-length", "worked out from the body, so an edit would corrupt the message",
            "host", "the site name the client asked for; Usher forwards it as received");
    /** RFC 9110 tchar, besides letters and digits. */
    private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";
    /** Scalars whose text is taken as a header value: {@code Max-Age: 600} is as good as {@code "600"}. */
    private static final Set<Tag> VALUE_TAGS = Set.of(Tag.STR, Tag.ENV_TAG, Tag.INT, Tag.FLOAT, Tag.BOOL);

    private final NodeWalker walker;
    private final Values values;

    HeaderRules(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    /** The rules of one mapping, in file order; rules with errors are left out after being reported. */
    List<HeaderRule> read(Field section) {
        List<HeaderRule> rules = new ArrayList<>();
        Map<String, Node> setAt = new HashMap<>();
        for (Field field : walker.entries(section.value(), section.path(),
                "a mapping of header names to values, such as " + EXAMPLE, "header name")) {
            rule(field, setAt).ifPresent(rules::add);
        }
        return rules;
    }

    private Optional<HeaderRule> rule(Field field, Map<String, Node> setAt) {
        String key = field.key();
        HeaderRule.Op op = key.startsWith("+") ? HeaderRule.Op.ADD
                : key.startsWith("-") ? HeaderRule.Op.REMOVE : HeaderRule.Op.SET;
        String name = op == HeaderRule.Op.SET ? key : key.substring(1);
        Optional<String> checked = values.parse(field.keyNode(), field.path(), () -> checkName(name, key));
        if (checked.isEmpty()) {
            return Optional.empty();
        }
        if (op == HeaderRule.Op.REMOVE) {
            return Optional.of(new HeaderRule(op, name, ""));
        }
        Node node = field.value();
        if (NodeWalker.isNull(node)) {
            walker.error(field.keyNode(), field.path(), "no value for " + name + "; give one, or write -" + name
                    + ": ~ to remove the header");
            return Optional.empty();
        }
        if (op == HeaderRule.Op.SET) {
            Node first = setAt.putIfAbsent(name.toLowerCase(Locale.ROOT), field.keyNode());
            if (first != null) {
                walker.error(field.keyNode(), field.path(), name + " is already set " + walker.where(first)
                        + "; write +" + name + " to add a second value");
                return Optional.empty();
            }
        }
        return walker.text(node, field.path(), "a header value", VALUE_TAGS)
                .flatMap(text -> values.parse(node, field.path(), () -> checkValue(text)))
                .map(text -> new HeaderRule(op, name, text));
    }

    /** Checks a header name (without its + or - prefix); {@code key} is the key as written. */
    static String checkName(String name, String key) throws BadValue {
        if (name.isEmpty()) {
            throw new BadValue(key.isEmpty() ? "the header name is empty"
                    : "the header name is missing after \"" + key + "\"");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!isTokenChar(c)) {
                throw new BadValue("\"" + name + "\" is not a valid header name: it contains " + shown(c)
                        + "; a header name has only letters, digits and " + TOKEN_SYMBOLS);
            }
        }
        String reason = UNTOUCHABLE.get(name.toLowerCase(Locale.ROOT));
        if (reason != null) {
            throw new BadValue(name + " cannot be edited: it is " + reason);
        }
        return name;
    }

    /**
     * Checks a header value: no control characters but tab (a line break would start a forged header), and plain
     * ASCII only, since other characters would be mangled on the wire.
     */
    static String checkValue(String value) throws BadValue {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                throw new BadValue("a header value cannot contain " + shown(c) + " (line breaks and other control "
                        + "characters would corrupt the message)");
            }
            if (c > 0x7f) {
                throw new BadValue("a header value must be plain ASCII; \""
                        + new String(Character.toChars(value.codePointAt(i))) + "\" is not (percent-encode it, "
                        + "or use the header's own encoding, such as filename*=UTF-8''...)");
            }
        }
        return value;
    }

    /** True for an RFC 9110 token character. */
    static boolean isTokenChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || TOKEN_SYMBOLS.indexOf(c) >= 0;
    }

    private static String shown(char c) {
        return switch (c) {
            case ' ' -> "a space";
            case '\n' -> "a line break (\\n)";
            case '\r' -> "a carriage return (\\r)";
            case '\0' -> "a NUL character";
            default -> c < 0x20 || c == 0x7f ? String.format("the control character U+%04X", (int) c)
                    : "\"" + c + "\"";
        };
    }
}
