package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Reads who may use a site: {@code allow:} and {@code deny:} (IP networks) and {@code basic_auth:} (user name to
 * bcrypt hash). Error messages never show a basic_auth value, which might be a password pasted by mistake.
 */
final class AccessReader {
    static final String HASH_TOOL = "make one with: usher hash-password";

    private static final Pattern BCRYPT = Pattern.compile("^\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}$");
    private static final int MIN_COST = 4;
    private static final int MAX_COST = 31;

    private final NodeWalker walker;
    private final Values values;

    AccessReader(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    /** The site's access settings from its {@code allow}, {@code deny} and {@code basic_auth} fields (any absent). */
    Access read(Field allow, Field deny, Field basicAuth) {
        return read(allow, deny, basicAuth, Access.OPEN);
    }

    /**
     * As {@link #read(Field, Field, Field)}, each absent field taking {@code base}'s value (a path takes its site's);
     * {@code basic_auth: off} means no password, where the base has one.
     */
    Access read(Field allow, Field deny, Field basicAuth, Access base) {
        List<Cidr> allowed = Optional.ofNullable(allow)
                .map(f -> values.cidrs(f, false, "an empty allow list would let every client in; list who may "
                        + "connect, or remove allow:").orElse(List.of()))
                .orElse(base.allow());
        List<Cidr> denied = Optional.ofNullable(deny).map(f -> values.cidrs(f, true, "").orElse(List.of()))
                .orElse(base.deny());
        Map<String, String> users = Optional.ofNullable(basicAuth)
                .map(f -> Values.isOff(f.value()) ? Map.<String, String>of() : users(f)).orElse(base.basicAuth());
        return new Access(allowed, denied, users);
    }

    private Map<String, String> users(Field section) {
        if (NodeWalker.isNull(section.value()) || section.value() instanceof MappingNode m && m.getValue().isEmpty()) {
            walker.error(section.keyNode(), section.path(), "basic_auth has no users; add lines of user: bcrypt hash "
                    + "(" + HASH_TOOL + "), or remove basic_auth:");
            return Map.of();
        }
        Map<String, String> users = new LinkedHashMap<>();
        for (Field field : walker.entries(section.value(), section.path(),
                "a mapping of user names to bcrypt hashes, such as {alice: \"$2y$10$...\"}", "user name")) {
            Optional<String> user = values.parse(field.keyNode(), field.path(), () -> checkUser(field));
            Optional<String> hash = hash(field);
            if (user.isPresent() && hash.isPresent()) {
                users.put(user.get(), hash.get());
            }
        }
        return users;
    }

    private static String checkUser(Field field) throws BadValue {
        String user = field.key();
        if (NodeWalker.isNull(field.keyNode()) || user.isEmpty()) {
            throw new BadValue("the user name is empty");
        }
        if (user.indexOf(':') >= 0) {
            throw new BadValue("a user name cannot contain \":\" (basic auth splits user and password there)");
        }
        if (user.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new BadValue("a user name cannot contain control characters");
        }
        return user;
    }

    /** The hash of one user; shown in no message, in case it is a password. */
    private Optional<String> hash(Field field) {
        Node node = field.value();
        if (!(node instanceof ScalarNode scalar) || !NodeWalker.STRING.contains(node.getTag())) {
            walker.error(node, field.path(), "expected a bcrypt hash in quotes, such as \"$2y$10$...\"; "
                    + HASH_TOOL);
            return Optional.empty();
        }
        return values.parse(node, field.path(), () -> checkHash(scalar.getValue()));
    }

    /** Checks a bcrypt hash ({@code $2y$10$} and 53 more characters) and its cost; the message never shows it. */
    static String checkHash(String hash) throws BadValue {
        if (hash.startsWith("$apr1$") || hash.startsWith("{SHA}") || hash.startsWith("$1$") || hash.startsWith("$5$")
                || hash.startsWith("$6$")) {
            throw new BadValue("only bcrypt hashes are accepted, not MD5, SHA or crypt ones; " + HASH_TOOL);
        }
        if (!BCRYPT.matcher(hash).matches()) {
            throw new BadValue("not a bcrypt hash ($2y$ or $2a$ or $2b$, two digits of cost, $, then 53 characters); "
                    + HASH_TOOL);
        }
        int cost = Integer.parseInt(hash.substring(4, 6));
        if (cost < MIN_COST || cost > MAX_COST) {
            throw new BadValue("the bcrypt cost " + hash.substring(4, 6) + " is out of range (04 to 31); "
                    + HASH_TOOL);
        }
        return hash;
    }
}
