package dev.usher.fleet;

import org.junit.jupiter.api.Test;

import java.security.GeneralSecurityException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keys sealed for Redis open only with the same key, for the same place, unaltered; the text shows nothing. */
class SealingTest {
    private static byte[] key(int fill) {
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) fill);
        return key;
    }

    @Test
    void opensWhatItSealedAndHidesIt() throws Exception {
        Sealing sealing = new Sealing(key(1));
        String pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n";
        String sealed = sealing.seal(pem, "usher:cert:le:app.example.com");
        assertThat(sealed).startsWith("v1:").doesNotContain("PRIVATE KEY").doesNotContain("MIGHAgEA");
        assertThat(sealing.seal(pem, "usher:cert:le:app.example.com")).as("a fresh nonce each time")
                .isNotEqualTo(sealed);
        assertThat(sealing.open(sealed, "usher:cert:le:app.example.com")).isEqualTo(pem);
    }

    @Test
    void refusesAnotherKeyAnotherPlaceAndAlteredText() {
        String sealed = new Sealing(key(1)).seal("secret", "usher:cert:le:a.example.com");
        assertThatThrownBy(() -> new Sealing(key(2)).open(sealed, "usher:cert:le:a.example.com"))
                .isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> new Sealing(key(1)).open(sealed, "usher:cert:le:b.example.com"))
                .as("moved to another name").isInstanceOf(GeneralSecurityException.class);
        char[] chars = sealed.toCharArray();
        chars[10] = chars[10] == 'A' ? 'B' : 'A';
        assertThatThrownBy(() -> new Sealing(key(1)).open(new String(chars), "usher:cert:le:a.example.com"))
                .isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> new Sealing(key(1)).open("-----BEGIN PRIVATE KEY-----", "x"))
                .isInstanceOf(GeneralSecurityException.class);
    }
}
