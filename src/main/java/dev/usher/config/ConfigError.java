package dev.usher.config;

/**
 * One problem found in a config file, with where it is.
 *
 * @param file    the file name as given to the loader
 * @param line    1-based line
 * @param column  1-based column
 * @param path    the YAML path of the offending node, such as {@code sites."app.example.com".to[1]}; empty at the top
 * @param message a plain sentence saying what is wrong and, where possible, what would be right
 */
public record ConfigError(String file, int line, int column, String path, String message) {
    /**
     * {@code file:line:column: path: message}, the form {@code usher check} prints; {@code file: path: message} for
     * an error with no position (line 0): a listener that cannot be bound, a container's label.
     */
    public String format() {
        return file + (line > 0 ? ":" + line + ":" + column : "") + ": " + (path.isEmpty() ? "" : path + ": ")
                + message;
    }

    @Override
    public String toString() {
        return format();
    }
}
