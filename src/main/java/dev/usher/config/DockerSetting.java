package dev.usher.config;

import java.nio.file.Path;

/**
 * {@code docker:}: where the Docker Engine API (or podman's Docker-compatible one) listens, and which network label
 * sites are reached on. Present only when the file turns discovery on.
 *
 * @param socket  the API's unix socket, such as {@code /var/run/docker.sock}
 * @param network the network Usher shares with the containers it routes to; null: each container's only network
 */
public record DockerSetting(Path socket, String network) {
    /** Where Docker puts its socket. */
    public static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");
}
