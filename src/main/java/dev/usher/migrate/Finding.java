package dev.usher.migrate;

/**
 * Something of the source set-up that was not converted, or converted with a difference the user should know.
 *
 * @param kind   which of the two
 * @param origin where it is in the source
 * @param what   what it was ({@code advanced_config (3 lines)}, {@code handle_path /api/*})
 * @param why    why, and what to do about it
 */
public record Finding(Kind kind, Origin origin, String what, String why) {
    /** Whether the item was dropped or carried over differently. */
    public enum Kind {
        /** Not in the written file: {@code --strict} fails on these. */
        NOT_CONVERTED,
        /** Converted, but Usher behaves a little differently (said why). */
        CHANGED
    }

    /** One line for the list: {@code file, place: what: why}. */
    public String line() {
        return origin.where() + ": " + what + ": " + why;
    }
}
