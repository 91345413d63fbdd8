package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The configs the image and compose.yaml ship are valid, and say what docs/containers.md says they do. */
class ContainerFilesTest {
    @Test
    void theImagesDefaultConfigLoads() throws Exception {
        UsherConfig config = ConfigLoader.load(Path.of("container", "usher.yaml"));
        assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/usher"));
        assertThat(config.admin()).isEqualTo(new ListenAddress("127.0.0.1", 2019)); // the health check asks it
        assertThat(config.sites()).isEmpty();
    }

    @Test
    void theComposeExampleRoutesOneAppFromTheFileAndTheOthersFromLabels() throws Exception {
        UsherConfig config = ConfigLoader.load(Path.of("container", "example", "usher.yaml"));
        assertThat(config.docker()).isEqualTo(new DockerSetting(Path.of("/var/run/docker.sock"), "web"));
        assertThat(config.sites()).extracting(Site::name).containsExactly("app.example.com");
        assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/usher"));
        String compose = Files.readString(Path.of("compose.yaml"));
        assertThat(compose).contains("usher.host: whoami.example.com", "name: web", "usher-data:/var/lib/usher",
                "./container/example:/etc/usher", "/var/run/docker.sock:/var/run/docker.sock:ro");
    }
}
