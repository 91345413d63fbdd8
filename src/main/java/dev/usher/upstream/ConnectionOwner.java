package dev.usher.upstream;

/**
 * Where an {@link UpstreamConnection} goes when its exchange is done: a {@link LoopPool} keeps HTTP/1.1 connections
 * for the next request; an {@link H2Connection} ends the stream (its connection carries the next one).
 */
interface ConnectionOwner {
    /** The exchange on {@code conn} completed in full: keep it for reuse, or end it. */
    void release(UpstreamConnection conn);

    /** {@code conn} closed: forget it. */
    void remove(UpstreamConnection conn);

    /** The backend, for log lines. */
    String upstream();
}
