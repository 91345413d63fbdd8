package dev.usher.config;

/**
 * Global size and count limits ({@code limits:} in the file).
 *
 * @param headerSize  the largest request head (request line plus headers) in bytes; larger gets 431 (or 414 for a
 *                    request line alone too long)
 * @param maxBody     the largest request body in bytes for sites that set none; 0 means no limit; larger gets 413
 * @param connections the most client connections open at once, more are closed at accept; {@link #AUTOMATIC} when
 *                    the file sets none (then 10,000, or fewer when the open-file limit cannot hold that many)
 */
public record Limits(int headerSize, long maxBody, int connections) {
    /** {@code connections} not set: what the process's open-file limit holds, at most 10,000. */
    public static final int AUTOMATIC = 0;
    /** The defaults: 16 KiB of head, no body limit, connections {@link #AUTOMATIC}. */
    public static final Limits DEFAULTS = new Limits(16 * 1024, 0, AUTOMATIC);
}
