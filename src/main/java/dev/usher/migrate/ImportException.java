package dev.usher.migrate;

import java.util.List;

/** Why an import wrote nothing: the output exists, the result would not load, a file could not be written. */
public final class ImportException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient List<String> details;

    public ImportException(String message) {
        this(message, List.of());
    }

    public ImportException(String message, List<String> details) {
        super(message);
        this.details = List.copyOf(details);
    }

    /** Lines that explain the message (the loader's errors), possibly none. */
    public List<String> details() {
        return details;
    }
}
