package dev.usher.server;

/** A listener could not be bound; the message says why in plain words. */
public final class ListenException extends Exception {
    private static final long serialVersionUID = 1L;

    public ListenException(String message, Throwable cause) {
        super(message, cause);
    }
}
