package dev.usher.observe;

import dev.usher.config.UpstreamAddress;

/**
 * One relayed connection or UDP session, once it ended.
 *
 * @param startMillis   when it started, in epoch milliseconds
 * @param client        the client's IP address (from a load balancer's PROXY header when there was one)
 * @param stream        the stream's name ({@code ":2222"}), or the passthrough site's name
 * @param kind          {@code tcp}, {@code udp} or {@code tls-passthrough}
 * @param serverName    the TLS server name the connection was routed by, or null
 * @param upstream      the backend it was relayed to, or null when none was reached
 * @param bytesIn       bytes from the client (datagram payloads for UDP)
 * @param bytesOut      bytes to the client
 * @param durationNanos from its start to its end
 * @param ending        how it ended
 * @param logged        whether it goes to the access log (the stream's or site's {@code access_log})
 */
public record StreamRecord(long startMillis, String client, String stream, String kind, String serverName,
                           UpstreamAddress upstream, long bytesIn, long bytesOut, long durationNanos,
                           StreamEnding ending, boolean logged) {
}
