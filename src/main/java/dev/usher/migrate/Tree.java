package dev.usher.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reading a configuration parsed into maps, lists and scalars (from YAML, TOML, JSON or labels), the way Traefik
 * reads its own: option names in any case ({@code loadBalancer}, {@code loadbalancer}), a list also written as one
 * comma-separated string (as labels write lists).
 */
final class Tree {
    private Tree() {
    }

    /** The value under {@code key} in {@code node} (any case), or null. */
    static Object get(Object node, String key) {
        if (!(node instanceof Map<?, ?> map)) {
            return null;
        }
        Object exact = map.get(key);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (String.valueOf(e.getKey()).equalsIgnoreCase(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** {@code get} along a path of keys. */
    static Object at(Object node, String... keys) {
        Object v = node;
        for (String k : keys) {
            v = get(v, k);
        }
        return v;
    }

    /** The map under {@code key} with string keys, in order; empty when absent or not a map. */
    static Map<String, Object> map(Object node, String key) {
        return asMap(get(node, key));
    }

    static Map<String, Object> asMap(Object value) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (value instanceof Map<?, ?> m) {
            m.forEach((k, v) -> out.put(String.valueOf(k), v));
        }
        return out;
    }

    /** The list under {@code key}: a list's scalars as text, or a comma-separated string split; empty if absent. */
    static List<String> strings(Object node, String key) {
        Object v = get(node, key);
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> list) {
            for (Object o : list) {
                if (o != null && !(o instanceof Map) && !(o instanceof List)) {
                    out.add(text(o));
                }
            }
        } else if (v != null && !(v instanceof Map)) {
            for (String part : text(v).split(",")) {
                if (!part.isBlank()) {
                    out.add(part.strip());
                }
            }
        }
        return out;
    }

    /** The scalar under {@code key} as text, or null. */
    static String string(Object node, String key) {
        Object v = get(node, key);
        return v == null || v instanceof Map || v instanceof List ? null : text(v);
    }

    /** True when {@code key} holds {@code true} (or the text "true"). */
    static boolean flag(Object node, String key) {
        Object v = get(node, key);
        return Boolean.TRUE.equals(v) || v instanceof String s && s.strip().equalsIgnoreCase("true");
    }

    /** A scalar as written: whole numbers without {@code .0}. */
    static String text(Object v) {
        if (v instanceof Double d && d == Math.rint(d) && !d.isInfinite()) {
            return Long.toString(d.longValue());
        }
        return String.valueOf(v);
    }
}
