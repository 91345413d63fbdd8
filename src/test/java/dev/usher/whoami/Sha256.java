package dev.usher.whoami;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 helpers for tests, including the digest of whoami's documented {@code /data} pattern. */
final class Sha256 {
    private Sha256() {
    }

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static String hex(byte[] digest) {
        return HexFormat.of().formatHex(digest);
    }

    /** The pattern computed independently of the server: byte {@code i} is {@code i mod 256}. */
    static byte[] patternBlock(int length) {
        byte[] block = new byte[length];
        for (int i = 0; i < length; i++) {
            block[i] = (byte) (i % 256);
        }
        return block;
    }

    /** SHA-256 of the first {@code size} bytes of the pattern. */
    static String ofPattern(long size) {
        MessageDigest digest = newDigest();
        byte[] block = patternBlock(64 * 1024);
        for (long left = size; left > 0; left -= block.length) {
            digest.update(block, 0, (int) Math.min(block.length, left));
        }
        return hex(digest.digest());
    }
}
