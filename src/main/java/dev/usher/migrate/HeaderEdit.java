package dev.usher.migrate;

/**
 * One header edit as {@code headers:} and {@code request_headers:} write it.
 *
 * @param op    set (replace), add (another value) or remove
 * @param name  the header name
 * @param value the value; ignored for {@code REMOVE}
 */
public record HeaderEdit(Op op, String name, String value) {
    /** What the edit does. */
    public enum Op {
        SET, ADD, REMOVE
    }

    public static HeaderEdit set(String name, String value) {
        return new HeaderEdit(Op.SET, name, value);
    }

    public static HeaderEdit add(String name, String value) {
        return new HeaderEdit(Op.ADD, name, value);
    }

    public static HeaderEdit remove(String name) {
        return new HeaderEdit(Op.REMOVE, name, null);
    }

    /** The key as the file writes it: {@code Name}, {@code +Name} or {@code -Name}. */
    String key() {
        return switch (op) {
            case SET -> name;
            case ADD -> "+" + name;
            case REMOVE -> "-" + name;
        };
    }
}
