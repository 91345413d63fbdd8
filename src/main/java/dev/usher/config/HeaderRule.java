package dev.usher.config;

/**
 * One edit of request or response headers. In the file, Caddy-style: {@code Name: value} sets (replaces),
 * {@code +Name: value} adds another value, {@code -Name:} removes.
 *
 * @param op    what to do
 * @param name  the header name as written
 * @param value the value for SET and ADD; empty for REMOVE
 */
public record HeaderRule(Op op, String name, String value) {
    /** The kinds of edit. */
    public enum Op { SET, ADD, REMOVE }
}
