package dev.usher.dns;

/**
 * A DNS-01 step failed: a provider refused or could not be reached (its own message is kept), a zone could not be
 * found, or the record did not reach every authoritative server in time. The message says what to look at.
 */
public final class DnsException extends Exception {
    private static final long serialVersionUID = 1L;

    public DnsException(String message) {
        super(message);
    }

    public DnsException(String message, Throwable cause) {
        super(message, cause);
    }
}
