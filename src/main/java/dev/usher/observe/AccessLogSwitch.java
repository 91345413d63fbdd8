package dev.usher.observe;

/**
 * Where logged requests go now: the access log in service, or none. A reload that changes {@code access_log:}
 * opens the new log first and then {@link #replace}s the old one, which writes what it had queued and closes; the
 * request pipelines keep this one object, so they never need rebuilding for it. One volatile read per request.
 *
 * <p>Thread-safe.
 */
public final class AccessLogSwitch implements RequestObserver, StreamObserver, AutoCloseable {
    private volatile AccessLog current;

    /** @param first the access log to start with, or null for none */
    public AccessLogSwitch(AccessLog first) {
        this.current = first;
    }

    @Override
    public void requestEnded(RequestRecord request) {
        AccessLog log = current;
        if (log != null) {
            log.requestEnded(request);
        }
    }

    @Override
    public void streamEnded(StreamRecord record) {
        AccessLog log = current;
        if (log != null) {
            log.streamEnded(record);
        }
    }

    /** The access log in service, or null. */
    public AccessLog current() {
        return current;
    }

    /** Puts {@code next} (or none) in service and closes the one it replaces (after writing its queue). */
    public void replace(AccessLog next) {
        AccessLog old = current;
        current = next;
        if (old != null && old != next) {
            old.close();
        }
    }

    /** Reopens the file of the access log in service, if any (SIGUSR1, after logrotate moved it). */
    public void reopen() {
        AccessLog log = current;
        if (log != null) {
            log.reopen();
        }
    }

    @Override
    public void close() {
        replace(null);
    }
}
