package dev.usher.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code storage:}: a fleet's Redis (address or Sentinel), its password and the key that seals private keys. */
class StorageConfigTest {
    @TempDir
    Path dir;

    private UsherConfig parse(String yaml, Map<String, String> variables) throws ConfigException {
        return ConfigLoader.parse(yaml, "t.yaml", new HostEnvironment("alice", "/home/alice", variables), dir);
    }

    private byte[] key() throws Exception {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) i;
        }
        return key;
    }

    @Test
    void withoutStorageEverythingStaysInTheDataDirectory() throws Exception {
        assertThat(parse("sites: {app.example.com: 127.0.0.1:8080}", Map.of()).storage()).isNull();
    }

    @Test
    void readsARedisAddressAHexKeyAPasswordFromTheEnvironmentAndALease() throws Exception {
        Files.writeString(dir.resolve("storage.key"), HexFormat.of().formatHex(key()) + "\n");
        StorageSetting s = parse("""
                storage:
                  redis: "rediss://10.0.0.5:6380/2"
                  password: ${REDIS_PASSWORD}
                  encryption_key_file: storage.key
                  node: web-1
                  lease: 30s
                """, Map.of("REDIS_PASSWORD", "s3cret")).storage();
        assertThat(s.redis()).hasToString("rediss://10.0.0.5:6380/2");
        assertThat(s.tls()).as("rediss:// is TLS").isTrue();
        assertThat(s.password().reveal()).isEqualTo("s3cret");
        assertThat(s.encryptionKey()).isEqualTo(key());
        assertThat(s.node()).isEqualTo("web-1");
        assertThat(s.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.toString()).doesNotContain("s3cret").contains("10.0.0.5:6380");
    }

    @Test
    void readsASentinelABase64KeyAndDefaultsTheLeaseAndTheNodeName() throws Exception {
        Files.writeString(dir.resolve("storage.key"), Base64.getEncoder().encodeToString(key()));
        StorageSetting s = parse("""
                storage:
                  redis_sentinel: {master: mymaster, nodes: ["10.0.0.5:26379", "10.0.0.6:26379"]}
                  encryption_key_file: storage.key
                """, Map.of()).storage();
        assertThat(s.redis()).isNull();
        assertThat(s.sentinel()).isEqualTo(new StorageSetting.Sentinel("mymaster",
                List.of("10.0.0.5:26379", "10.0.0.6:26379")));
        assertThat(s.encryptionKey()).isEqualTo(key());
        assertThat(s.lease()).isEqualTo(StorageSetting.DEFAULT_LEASE);
        assertThat(s.node()).isNotBlank();
    }

    @Test
    void aKeyFileThatHoldsNoThirtyTwoByteKeyIsAnErrorAtItsPosition() throws Exception {
        Files.writeString(dir.resolve("short.key"), "abcd");
        assertThatThrownBy(() -> parse("""
                storage: {redis: "redis://127.0.0.1:6379", encryption_key_file: short.key}
                """, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("t.yaml:1:65: storage.encryption_key_file:")
                .hasMessageContaining("does not hold a storage key: expected 32 random bytes");
    }
}
