package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertStore;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.LocalCa;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.reload.Reloader;
import dev.usher.testing.Command;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The config and the data directory on a filesystem that is full: a real 512 KiB tmpfs (mounted by the test, so it
 * needs root, as CI has) filled to the last byte. Saving the config from the admin UI answers with an error that
 * says the disk is full, and the file, its backups and the running config are as they were; storing a certificate
 * fails with the same plain reason and leaves the stored pair whole and loadable. Once space is freed, the same
 * save and the same store succeed; a certificate the running Usher could not store is stored once there is room.
 */
class FullDiskTest {
    Path mount;
    Path file;
    Whoami backend;
    Usher usher;
    Reloader reloader;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void mountAndStart() throws Exception {
        mount = Files.createTempDirectory("usher-full-disk");
        Command mounted = Command.run("mount", "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs",
                mount.toString());
        assertThat(mounted.exitCode()).as("mount a tmpfs (this test needs root): " + mounted.output()).isZero();
        backend = Whoami.start("127.0.0.1", 0, "full-disk");
        file = mount.resolve("usher.yaml");
        Files.writeString(file, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: ./data
                sites:
                  app.localhost: 127.0.0.1:%d
                """.formatted(backend.port()));
        usher = Usher.start(ConfigLoader.load(file), 1, new Retry(Duration.ofMillis(200), Duration.ofSeconds(1)),
                Duration.ofSeconds(1));
        reloader = usher.reloadFrom(file);
    }

    @AfterEach
    void stopAndUnmount() throws Exception {
        if (usher != null) {
            usher.close();
        }
        if (backend != null) {
            backend.close();
        }
        if (Command.run("umount", mount.toString()).exitCode() != 0) {
            Command.run("umount", "-l", mount.toString()); // something still open: detach it anyway
        }
        Files.deleteIfExists(mount);
    }

    /** Fills the filesystem until a write fails with "no space"; returns the filler file. */
    private Path fill() throws IOException {
        Path filler = mount.resolve("filler");
        try (OutputStream out = Files.newOutputStream(filler)) {
            byte[] block = new byte[4096];
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException e) {
            assertThat(e.getMessage()).containsIgnoringCase("no space");
        }
        // a few bytes may still fit in a partly used block: take those too
        try (OutputStream out = Files.newOutputStream(mount.resolve("filler-tail"))) {
            while (true) {
                out.write(0);
                out.flush();
            }
        } catch (IOException e) {
            // full
        }
        return filler;
    }

    private void free(Path filler) throws IOException {
        Files.delete(filler);
        Files.deleteIfExists(mount.resolve("filler-tail"));
    }

    /** Every file under the mount but the fillers, with its bytes' hash. */
    private Map<String, Integer> files() throws IOException {
        Map<String, Integer> all = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(mount)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                String name = mount.relativize(p).toString();
                if (!name.startsWith("filler") && !name.startsWith("data/locks")) {
                    all.put(name, java.util.Arrays.hashCode(Files.readAllBytes(p)));
                }
            }
        }
        return all;
    }

    private HttpResponse<String> admin(String method, String path, String ifMatch, String json) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + usher.adminAddress().getPort() + path);
        if (method.equals("GET")) {
            return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
        }
        String session = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + usher.adminAddress().getPort() + "/api/session")).build(), HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher csrf = Pattern.compile("\"csrf\":\"([^\"]+)\"").matcher(session);
        assertThat(csrf.find()).isTrue();
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .method(method, HttpRequest.BodyPublishers.ofString(json))
                .header("Content-Type", "application/json").header("X-Usher-CSRF", csrf.group(1));
        if (ifMatch != null) {
            b.header("If-Match", ifMatch);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String version() throws Exception {
        Matcher m = Pattern.compile("\"version\":\"([^\"]+)\"").matcher(admin("GET", "/api/sites", null, null)
                .body());
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    @Test
    void savingTheConfigOnAFullDiskSaysSoAndChangesNothingThenWorksOnceThereIsRoom() throws Exception {
        String site = """
                {"name": "new.localhost", "upstreams": ["127.0.0.1:%d"], "tls": "off"}""".formatted(backend.port());
        String version = version();
        Map<String, Integer> before = files();
        Path filler = fill();

        HttpResponse<String> refused = admin("POST", "/api/sites", version, site);
        assertThat(refused.statusCode()).isEqualTo(500);
        assertThat(refused.body()).containsIgnoringCase("no space left");
        assertThat(files()).as("the config, its backups, the data directory: as they were").isEqualTo(before);
        assertThat(version()).isEqualTo(version);
        assertThat(usher.reloads().snapshot().successes()).as("nothing was reloaded").isZero();

        free(filler);
        HttpResponse<String> saved = admin("POST", "/api/sites", version, site);
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(201);
        assertThat(Files.readString(file)).contains("new.localhost");
    }

    @Test
    void storingACertificateOnAFullDiskFailsPlainlyAndLeavesTheStoredPairWhole() throws Exception {
        CertStore store = new CertStore(mount.resolve("data"));
        LocalCa ca = LocalCa.open(store);
        Optional<CertifiedKey> old = store.load(LocalCa.ID, "app.localhost");
        assertThat(old).as("Usher stored the local CA's certificate at start").isPresent();
        Map<String, Integer> before = files();
        Path filler = fill();

        CertifiedKey fresh = ca.issue("app.localhost");
        assertThatThrownBy(() -> store.save(LocalCa.ID, "app.localhost", fresh))
                .isInstanceOf(IOException.class).hasMessageContaining("No space left");
        assertThat(files()).as("no half-written or temporary file, the old pair untouched").isEqualTo(before);
        assertThat(store.load(LocalCa.ID, "app.localhost")).get()
                .extracting(CertifiedKey::sha256).isEqualTo(old.get().sha256());

        // Renewing through the running Usher: the new certificate is served from memory, the stored pair stays.
        HttpResponse<String> renew = admin("POST", "/api/certificates/app.localhost/renew", null, "");
        assertThat(renew.statusCode()).isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (usher.certificates().certificateFor("app.localhost").sha256().equals(old.get().sha256())
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(usher.certificates().certificateFor("app.localhost").sha256()).isNotEqualTo(old.get().sha256());
        assertThat(files()).isEqualTo(before);
        assertThat(store.load(LocalCa.ID, "app.localhost")).get()
                .extracting(CertifiedKey::sha256).isEqualTo(old.get().sha256());

        // Once there is room again, Usher stores the certificate it serves by itself (no new order).
        String served = usher.certificates().certificateFor("app.localhost").sha256();
        free(filler);
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!store.load(LocalCa.ID, "app.localhost").map(CertifiedKey::sha256).orElse("").equals(served)
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(store.load(LocalCa.ID, "app.localhost")).get()
                .extracting(CertifiedKey::sha256).isEqualTo(served);
        assertThat(usher.certificates().certificateFor("app.localhost").sha256()).isEqualTo(served);
        assertThat(files().keySet()).as("no temporary file left from the failed stores")
                .isEqualTo(before.keySet());
        store.save(LocalCa.ID, "app.localhost", fresh);
        assertThat(store.load(LocalCa.ID, "app.localhost")).get()
                .extracting(CertifiedKey::sha256).isEqualTo(fresh.sha256());
    }
}
