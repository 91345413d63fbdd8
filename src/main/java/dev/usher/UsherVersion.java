package dev.usher;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** This build's version, from {@code usher-version.properties} (written by the build); "unknown" without it. */
public final class UsherVersion {
    private UsherVersion() {
    }

    public static String get() {
        try (InputStream in = UsherVersion.class.getResourceAsStream("/usher-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
