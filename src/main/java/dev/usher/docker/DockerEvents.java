package dev.usher.docker;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * Which Engine API events can change the label sites: a container starting, stopping, dying, being removed, paused,
 * renamed or changing health, and a network being connected or disconnected (a container attached to its network
 * after it started). Others (exec, attach, resize, the exec_* events every health check makes) are ignored. Every
 * event that matters only asks for a re-list: the list is the truth, the event a hint.
 */
final class DockerEvents {
    /**
     * The stream's filter: containers and networks. Only {@code type}: podman answers a {@code scope} filter with an
     * empty stream.
     */
    static final String FILTER = "/events?filters=" + URLEncoder.encode("{\"type\":[\"container\",\"network\"]}",
            StandardCharsets.UTF_8);
    private static final Set<String> CONTAINER = Set.of("start", "restart", "die", "died", "stop", "kill", "destroy",
            "remove", "pause", "unpause", "rename", "update");
    private static final Set<String> NETWORK = Set.of("connect", "disconnect");

    private DockerEvents() {
    }

    /** True when {@code event} (one decoded line of the stream) may change what is routed. */
    static boolean matters(Object event) {
        if (!(event instanceof Map<?, ?> map)) {
            return false;
        }
        Object type = map.containsKey("Type") ? map.get("Type") : map.get("type");
        Object action = map.containsKey("Action") ? map.get("Action") : map.get("status");
        if (!(type instanceof String t) || !(action instanceof String a)) {
            return false;
        }
        return switch (t) {
            case "container" -> CONTAINER.contains(a) || a.startsWith("health_status");
            case "network" -> NETWORK.contains(a);
            default -> false;
        };
    }
}
