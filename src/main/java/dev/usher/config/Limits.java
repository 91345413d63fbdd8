package dev.usher.config;

/**
 * Global size and count limits ({@code limits:} in the file).
 *
 * @param headerSize  the largest request head (request line plus headers) in bytes; larger gets 431 (or 414 for a
 *                    request line alone too long)
 * @param maxBody     the largest request body in bytes for sites that set none; 0 means no limit; larger gets 413
 * @param connections the most client connections open at once; more are closed at accept
 */
public record Limits(int headerSize, long maxBody, int connections) {
    /** The defaults: 16 KiB of head, no body limit, 10,000 connections. */
    public static final Limits DEFAULTS = new Limits(16 * 1024, 0, 10_000);
}
