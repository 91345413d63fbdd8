package dev.usher.nativeimage;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The system properties that {@code ./usher} gives the JVM on its command line, for the native executable, which
 * has no launcher: set here at start (before Netty reads them) unless the command line set them ({@code -Dkey=value}
 * works on the native executable too).
 */
public final class NativeDefaults {
    /** Where native/build.sh puts the JNI libraries, beside the executable. */
    static final String LIBRARY_DIRECTORY = "lib";

    private NativeDefaults() {
    }

    /** In the native executable: applies the defaults. On the JVM: does nothing (the launcher sets them). */
    public static void apply() {
        if (!NativeImage.isNativeExecutable()) {
            return;
        }
        // no per-thread buffer arenas held while idle: the launcher's -Dio.netty.allocator.type=unpooled
        setIfAbsent("io.netty.allocator.type", "unpooled");
        Path executable = Path.of("/proc/self/exe");
        try {
            useLibrariesIn(executable.toRealPath().resolveSibling(LIBRARY_DIRECTORY));
        } catch (IOException e) {
            // no /proc: the libraries are extracted from the executable, as without the lib folder
        }
    }

    /**
     * The JNI libraries native/build.sh copies beside the executable, loaded from there: Netty tries
     * {@code java.library.path} before it extracts a library from the executable into a temporary file, zstd-jni
     * loads {@code ZstdNativePath} instead of extracting. Without the folder (the executable copied alone) each
     * library is extracted at start, as before. The launcher does the same for the JVM build (target/native).
     */
    static void useLibrariesIn(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        String path = System.getProperty("java.library.path", "");
        System.setProperty("java.library.path", path.isEmpty() ? dir.toString() : dir + File.pathSeparator + path);
        try (DirectoryStream<Path> zstd = Files.newDirectoryStream(dir, "libzstd-jni-*.so")) {
            for (Path library : zstd) {
                setIfAbsent("ZstdNativePath", library.toString());
            }
        }
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
