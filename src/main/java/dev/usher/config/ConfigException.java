package dev.usher.config;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a config file has one or more errors; carries all of them, in file order. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(errors.stream().map(ConfigError::format).collect(Collectors.joining("\n")));
        this.errors = List.copyOf(errors);
    }

    /** Every error found, in file order. */
    public List<ConfigError> errors() {
        return errors;
    }
}
