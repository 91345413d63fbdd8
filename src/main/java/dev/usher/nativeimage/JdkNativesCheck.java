package dev.usher.nativeimage;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The JDK natives whose C code changed between JDK 25 (the JDK the executable is built with) and JDK 26 (the Debian
 * source package its static libraries are compiled from), each called the way JDK 25's Java code calls it. Each
 * method throws when the native behaves otherwise than JDK 25's.
 */
final class JdkNativesCheck {
    private JdkNativesCheck() {
    }

    /**
     * {@code sun.net.sdp.SdpSupport.convert0} (gone in JDK 26): with a {@code com.sun.sdp.conf} rule for a bind to
     * 127.0.0.1, binding there turns the socket into an SDP socket first. No machine here has SDP (and JDK 25 refuses
     * it where IPv6 is available), so the native must answer with an IOException: a bind that succeeds means the rule
     * was never applied, an UnsatisfiedLinkError that the native is missing.
     */
    static void sdpConversion() throws IOException {
        Path rules = Files.createTempFile("usher-selftest-sdp", ".conf");
        try {
            Files.writeString(rules, "bind 127.0.0.1 *\n");
            System.setProperty("com.sun.sdp.conf", rules.toString());
            try (ServerSocketChannel channel = ServerSocketChannel.open()) {
                channel.bind(new InetSocketAddress("127.0.0.1", 0));
                throw new IllegalStateException("the bind succeeded: the SDP rule in com.sun.sdp.conf was not applied");
            } catch (IOException expected) {
                String message = String.valueOf(expected.getMessage());
                // JDK 25's two answers: "IPv6 not supported", or the OS's "Address family not supported by protocol"
                if (!message.contains("not supported")) {
                    throw new IllegalStateException("unexpected failure of the SDP conversion: " + expected, expected);
                }
            }
        } finally {
            System.clearProperty("com.sun.sdp.conf");
            Files.deleteIfExists(rules);
        }
    }

    /** {@code fstatat0} on an existing file (through a SecureDirectoryStream) reads its attributes. */
    static void fstatatExisting() throws IOException {
        withDirectory((stream, dir) -> {
            Files.writeString(dir.resolve("present"), "four");
            BasicFileAttributes attributes = stream.getFileAttributeView(Path.of("present"),
                    BasicFileAttributeView.class).readAttributes();
            if (attributes.size() != 4 || !attributes.isRegularFile()) {
                throw new IllegalStateException("read size " + attributes.size() + ", regular file "
                        + attributes.isRegularFile() + "; expected 4 and true");
            }
        });
    }

    /**
     * {@code fstatat0} on a missing file: JDK 25's Java code expects the native to throw (JDK 26's returns the errno
     * instead, which 25's code would read as a file with all-zero attributes).
     */
    static void fstatatMissing() throws IOException {
        withDirectory((stream, dir) -> {
            try {
                BasicFileAttributes attributes = stream.getFileAttributeView(Path.of("missing"),
                        BasicFileAttributeView.class).readAttributes();
                throw new IllegalStateException("attributes of a missing file were read: size " + attributes.size());
            } catch (NoSuchFileException expected) {
                // JDK 25's contract
            }
        });
    }

    private interface DirectoryCheck {
        void run(SecureDirectoryStream<Path> stream, Path dir) throws IOException;
    }

    private static void withDirectory(DirectoryCheck check) throws IOException {
        Path dir = Files.createTempDirectory("usher-selftest");
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
                throw new IllegalStateException("no SecureDirectoryStream on this file system");
            }
            check.run(secure, dir);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
