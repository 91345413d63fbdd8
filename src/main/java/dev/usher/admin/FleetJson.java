package dev.usher.admin;

import dev.usher.fleet.Fleet;
import dev.usher.fleet.FleetNode;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code GET /api/fleet}: the nodes sharing this node's storage, from their heartbeats, each flagged when its config
 * hash differs from this node's (config drift: the files were not deployed alike). Without {@code storage:} the
 * answer says so ({@code "storage": null}, no nodes).
 */
final class FleetJson {
    private FleetJson() {
    }

    static String of(Fleet fleet) {
        if (fleet == null) {
            return "{\"storage\":null,\"node\":null,\"reachable\":null,\"drift\":false,\"nodes\":[]}";
        }
        List<FleetNode> nodes;
        String error = null;
        try {
            nodes = fleet.nodes();
        } catch (IOException e) {
            nodes = List.of();
            error = e.getMessage();
        }
        String mine = nodes.stream().filter(n -> n.name().equals(fleet.node())).map(FleetNode::configHash)
                .findFirst().orElse(null);
        boolean drift = nodes.stream().map(FleetNode::configHash).distinct().count() > 1;
        String list = nodes.stream().map(n -> "{\"name\":" + Json.string(n.name())
                        + ",\"self\":" + n.name().equals(fleet.node())
                        + ",\"version\":" + Json.string(n.version())
                        + ",\"config_hash\":" + Json.string(n.configHash())
                        + ",\"drift\":" + (mine != null && !mine.equals(n.configHash()))
                        + ",\"last_reload\":" + Json.instant(n.lastReload())
                        + ",\"started_at\":" + Json.instant(n.startedAt())
                        + ",\"seen_at\":" + Json.instant(n.seenAt()) + "}")
                .collect(Collectors.joining(",", "[", "]"));
        return "{\"storage\":" + Json.string(fleet.where()) + ",\"node\":" + Json.string(fleet.node())
                + ",\"reachable\":" + fleet.reachable() + ",\"drift\":" + drift
                + (error == null ? "" : ",\"error\":" + Json.string(error)) + ",\"nodes\":" + list + "}";
    }
}
