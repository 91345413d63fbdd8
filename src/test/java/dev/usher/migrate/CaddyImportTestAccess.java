package dev.usher.migrate;

import java.io.IOException;
import java.nio.file.Path;

/** Lets tests in other packages lay out Caddy's data folder as {@link CaddyImportTest} does. */
public final class CaddyImportTestAccess {
    private CaddyImportTestAccess() {
    }

    /** A certificate where Caddy keeps it: {@code certificates/<issuer>/<name>/<name>.crt} and {@code .key}. */
    public static void caddyCert(Path storage, String issuer, String stored, TestCerts.Pair pair) throws IOException {
        CaddyImportTest.caddyCert(storage, issuer, stored, pair);
    }
}
