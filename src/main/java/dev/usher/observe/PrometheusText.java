package dev.usher.observe;

/**
 * Builds the Prometheus text exposition format (version 0.0.4) by hand: a family is a {@code # HELP} and a
 * {@code # TYPE} line followed by its samples. Label values are escaped as the format asks.
 *
 * <p>Not thread-safe: one per scrape.
 */
public final class PrometheusText {
    /** The Content-Type of the exposition. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder out = new StringBuilder(8192);

    /** Starts a family; {@code type} is counter, gauge or histogram. */
    public PrometheusText family(String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        return this;
    }

    /** A sample; {@code labels} alternate names and values. */
    public PrometheusText sample(String name, double value, String... labels) {
        labels(name, labels);
        number(value);
        return this;
    }

    /** A sample with a whole value. */
    public PrometheusText sample(String name, long value, String... labels) {
        labels(name, labels);
        out.append(value).append('\n');
        return this;
    }

    private void labels(String name, String... labels) {
        out.append(name);
        if (labels.length > 0) {
            out.append('{');
            for (int i = 0; i + 1 < labels.length; i += 2) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(labels[i]).append("=\"");
                escape(labels[i + 1]);
                out.append('"');
            }
            out.append('}');
        }
        out.append(' ');
    }

    private void number(double value) {
        if (Double.isNaN(value)) {
            out.append("NaN");
        } else if (Double.isInfinite(value)) {
            out.append(value > 0 ? "+Inf" : "-Inf");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(value);
        }
        out.append('\n');
    }

    private void escape(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
