package dev.usher.fleet;

import java.time.Instant;

/**
 * One node of the fleet as its heartbeat says: for {@code GET /api/fleet} and the admin UI.
 *
 * @param name       the node's name ({@code storage: {node: ...}}, or its host name)
 * @param version    the Usher version it runs
 * @param configHash what of its config must match across the fleet (sites, ACME, streams), hashed: a different one
 *                   on another node is config drift
 * @param lastReload when its config was last loaded
 * @param startedAt  when it started
 * @param seenAt     its last heartbeat
 */
public record FleetNode(String name, String version, String configHash, Instant lastReload, Instant startedAt,
                        Instant seenAt) {
}
