package dev.usher.fleet;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals private keys before they go to Redis: AES-256-GCM with the fleet's key ({@code encryption_key_file}), a
 * random 96-bit nonce per value, and the Redis key the value is stored under as associated data, so a sealed key
 * cannot be moved to another name unnoticed. A dump of Redis without the key file gives away no private key.
 * Sealed text: {@code v1:} then base64 of nonce and ciphertext (with its tag).
 */
final class Sealing {
    private static final String PREFIX = "v1:";
    private static final int NONCE = 12;
    private static final int TAG_BITS = 128;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    Sealing(byte[] key) {
        if (key.length != 32) {
            throw new IllegalArgumentException("a storage key is 32 bytes");
        }
        this.key = new SecretKeySpec(key, "AES");
    }

    /** {@code plain} sealed for the Redis key {@code where}. */
    String seal(String plain, String where) {
        byte[] nonce = new byte[NONCE];
        random.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(where.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            return PREFIX + Base64.getEncoder().encodeToString(ByteBuffer.allocate(NONCE + sealed.length)
                    .put(nonce).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot do AES-GCM", e);
        }
    }

    /**
     * What {@link #seal} sealed for {@code where}.
     *
     * @throws GeneralSecurityException when it was sealed with another key, for another place, or was altered
     */
    String open(String sealed, String where) throws GeneralSecurityException {
        if (!sealed.startsWith(PREFIX)) {
            throw new GeneralSecurityException("not a sealed value");
        }
        byte[] all;
        try {
            all = Base64.getDecoder().decode(sealed.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException("not a sealed value: " + e.getMessage());
        }
        if (all.length <= NONCE) {
            throw new GeneralSecurityException("a sealed value cut short");
        }
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, all, 0, NONCE));
        cipher.updateAAD(where.getBytes(StandardCharsets.UTF_8));
        return new String(cipher.doFinal(all, NONCE, all.length - NONCE), StandardCharsets.UTF_8);
    }
}
