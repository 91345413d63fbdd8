package dev.usher.admin;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Checks the token an admin request carries ({@code Authorization: Bearer TOKEN}, or HTTP Basic with the token as
 * the password) against the configured bcrypt hash. bcrypt takes tens of milliseconds on purpose, so it runs on a
 * virtual thread, never on an event loop; a token that matched is remembered (by its SHA-256) so that a tool
 * polling the endpoint pays once.
 */
final class AdminSecret {
    private static final int REMEMBERED = 16;

    private final Supplier<String> hash;
    private final Executor executor;
    /** SHA-256 of a token that matched → the hash it matched (a changed secret forgets it). */
    private final Map<String, String> verified = new ConcurrentHashMap<>();
    /** One bcrypt at a time: a flood of wrong tokens must not take every CPU from the event loops. */
    private final java.util.concurrent.Semaphore checking = new java.util.concurrent.Semaphore(1);

    /** {@code hash}: the current bcrypt hash, or null when the endpoint needs no secret (read per request). */
    AdminSecret(Supplier<String> hash, Executor executor) {
        this.hash = hash;
        this.executor = executor;
    }

    /** True when a secret is configured. */
    boolean required() {
        return hash.get() != null;
    }

    /** Completes with whether {@code authorization} (the header's value, or null) carries the secret. */
    CompletableFuture<Boolean> check(String authorization) {
        String expected = hash.get();
        String token = token(authorization);
        if (expected == null) {
            return CompletableFuture.completedFuture(true);
        }
        if (token == null || token.isEmpty() || token.length() > 256) {
            return CompletableFuture.completedFuture(false);
        }
        String digest = sha256(token);
        if (expected.equals(verified.get(digest))) {
            return CompletableFuture.completedFuture(true);
        }
        if (!checking.tryAcquire()) {
            return CompletableFuture.completedFuture(false); // busy checking another token: refused, try again
        }
        return CompletableFuture.supplyAsync(() -> {
            boolean ok;
            try {
                ok = OpenBSDBCrypt.checkPassword(expected, token.toCharArray());
            } finally {
                checking.release();
            }
            if (ok) {
                if (verified.size() >= REMEMBERED) {
                    verified.clear();
                }
                verified.put(digest, expected);
            }
            return ok;
        }, executor);
    }

    /** True when {@code authorization} carries a token that already matched the current secret (no bcrypt). */
    boolean remembered(String authorization) {
        String expected = hash.get();
        String token = token(authorization);
        return expected != null && token != null && !token.isEmpty() && token.length() <= 256
                && expected.equals(verified.get(sha256(token)));
    }

    /**
     * Blocks (call it off the event loop) until the bcrypt check of a login password is done; one check at a time.
     * False when no password is configured.
     */
    boolean verify(String password) throws InterruptedException {
        String expected = hash.get();
        if (expected == null || password == null || password.isEmpty() || password.length() > 256) {
            return false;
        }
        checking.acquire();
        try {
            return OpenBSDBCrypt.checkPassword(expected, password.toCharArray());
        } finally {
            checking.release();
        }
    }

    private static String token(String authorization) {
        if (authorization == null) {
            return null;
        }
        String value = authorization.strip();
        if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return value.substring(7).strip();
        }
        if (value.regionMatches(true, 0, "Basic ", 0, 6)) {
            try {
                String pair = new String(Base64.getDecoder().decode(value.substring(6).strip()),
                        StandardCharsets.UTF_8);
                int colon = pair.indexOf(':');
                return colon < 0 ? null : pair.substring(colon + 1);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
