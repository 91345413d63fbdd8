package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;

/**
 * A snapshot of one backend of a site, for metrics and the admin UI.
 *
 * @param address             the backend
 * @param up                  true when it may take requests now (neither health check nor passive health says down)
 * @param inFlight            requests sent to it and not yet ended
 * @param consecutiveFailures failures in a row since its last success (passive health)
 * @param downReason          why it is down ({@code health check: connection refused},
 *                            {@code 3 failures in a row}), or null when up
 */
public record BackendStatus(UpstreamAddress address, boolean up, int inFlight, int consecutiveFailures,
                            String downReason) {
}
