package dev.usher.observe;

/** The HTTP version a request came over, as written in the access log and the metrics' {@code protocol} label. */
enum Protocol {
    H1("h1"), H2("h2"), H3("h3");

    private final String label;

    Protocol(String label) {
        this.label = label;
    }

    /** {@code h1}, {@code h2} or {@code h3}. */
    public String label() {
        return label;
    }
}
