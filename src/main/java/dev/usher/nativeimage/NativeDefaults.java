package dev.usher.nativeimage;

/**
 * The system properties that {@code ./usher} gives the JVM on its command line, for the native executable, which
 * has no launcher: set here at start (before Netty reads them) unless the command line set them ({@code -Dkey=value}
 * works on the native executable too).
 */
public final class NativeDefaults {
    private NativeDefaults() {
    }

    /** In the native executable: applies the defaults. On the JVM: does nothing (the launcher sets them). */
    public static void apply() {
        if (!NativeImage.isNativeExecutable()) {
            return;
        }
        // no per-thread buffer arenas held while idle: the launcher's -Dio.netty.allocator.type=unpooled
        setIfAbsent("io.netty.allocator.type", "unpooled");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
