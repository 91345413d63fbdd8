package dev.usher.crowdsec;

import dev.usher.config.Cidr;
import dev.usher.json.JsonReader;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The decisions known from CrowdSec's stream ({@code GET /v1/decisions/stream}), by id: what the startup answer
 * lists, then each answer's {@code new} added and {@code deleted} taken away. Only bans matter to a proxy: type
 * {@code ban}, and {@code captcha} treated as one (Usher cannot show a captcha, and letting the client through would
 * ignore the decision); scope {@code Ip} (an address) or {@code Range} (a CIDR range). Other types and scopes
 * (country, AS) are skipped. Confined to the thread that follows the stream.
 */
final class Decisions {
    /** A ban as it is enforced: an address or a range. */
    private record Ban(InetAddress address, Cidr range) {
    }

    private final Map<Long, Ban> byId = new HashMap<>();

    /** How many decisions are known. */
    int size() {
        return byId.size();
    }

    /** Forgets every decision (before a startup answer, which lists them all). */
    void clear() {
        byId.clear();
    }

    /**
     * Applies one stream answer: {@code {"new": [...] | null, "deleted": [...] | null}}.
     *
     * @throws JsonReader.BadJson when it is not such an object
     */
    void apply(String json) throws JsonReader.BadJson {
        if (!(JsonReader.parse(json) instanceof Map<?, ?> answer)) {
            throw new JsonReader.BadJson("the decision stream answer is not an object");
        }
        for (Map<?, ?> d : list(answer.get("deleted"))) {
            Long id = id(d);
            Ban gone = id == null ? null : byId.remove(id);
            if (gone == null) {
                Ban ban = ban(d);
                if (ban != null) {
                    byId.values().removeIf(ban::equals); // an id we never had: the same ban by value
                }
            }
        }
        for (Map<?, ?> d : list(answer.get("new"))) {
            Ban ban = ban(d);
            Long id = id(d);
            if (ban != null && id != null) {
                byId.put(id, ban);
            }
        }
    }

    /** The banned addresses now. */
    List<InetAddress> addresses() {
        List<InetAddress> out = new ArrayList<>();
        for (Ban b : byId.values()) {
            if (b.address() != null) {
                out.add(b.address());
            }
        }
        return out;
    }

    /** The banned ranges now, each once. */
    List<Cidr> ranges() {
        List<Cidr> out = new ArrayList<>();
        for (Ban b : byId.values()) {
            if (b.range() != null && !out.contains(b.range())) {
                out.add(b.range());
            }
        }
        return out;
    }

    private static List<Map<?, ?>> list(Object value) throws JsonReader.BadJson {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> items)) {
            throw new JsonReader.BadJson("\"new\" and \"deleted\" are lists of decisions");
        }
        List<Map<?, ?>> out = new ArrayList<>(items.size());
        for (Object item : items) {
            if (item instanceof Map<?, ?> m) {
                out.add(m);
            }
        }
        return out;
    }

    private static Long id(Map<?, ?> decision) {
        return decision.get("id") instanceof Double d ? Long.valueOf(d.longValue()) : null;
    }

    /** The ban a decision asks for, or null for one Usher does not enforce. */
    private static Ban ban(Map<?, ?> decision) {
        String type = text(decision.get("type"));
        String scope = text(decision.get("scope"));
        String value = decision.get("value") instanceof String s ? s.strip() : null;
        if (value == null || !(type.equals("ban") || type.equals("captcha"))) {
            return null;
        }
        try {
            if (scope.equals("ip")) {
                Cidr one = Cidr.parse(value);
                return new Ban(one.network(), null);
            }
            if (scope.equals("range")) {
                return new Ban(null, Cidr.parse(value));
            }
        } catch (IllegalArgumentException e) {
            return null; // not an address: nothing to enforce
        }
        return null;
    }

    private static String text(Object value) {
        return value instanceof String s ? s.strip().toLowerCase(Locale.ROOT) : "";
    }
}
