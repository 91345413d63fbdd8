package dev.usher.admin;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The backup archive format: round trip (long names too), and refusals of what our archives never hold. */
class TarGzTest {
    private static TarGz.Entry file(String name, String content) {
        return new TarGz.Entry(name, 0600, 1_700_000_000L, false, content.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A negative size in a folder's header lowered the running total, so that files of a gigabyte then passed the
     * unpacked-size limit (a gzip bomb held in memory); a negative size in a file's header broke the reader.
     */
    @Test
    void refusesNegativeSizesThatWouldDodgeTheUnpackedLimit() throws Exception {
        for (boolean directory : new boolean[] {true, false}) {
            TarGz.Entry entry = directory ? new TarGz.Entry("data/ca", 0700, 1L, true, new byte[0])
                    : file("data/x", "");
            byte[] archive = withSize(TarGz.bytes(List.of(file("usher.yaml", "a"), entry)), 1, "-7777777777");
            assertThatThrownBy(() -> TarGz.read(new ByteArrayInputStream(archive), 1 << 20))
                    .isInstanceOf(TarGz.BadArchive.class).hasMessageContaining("size");
        }
    }

    /** The archive with the size field of its {@code index}th header replaced (and the checksum made right). */
    private static byte[] withSize(byte[] gzipped, int index, String octal) throws Exception {
        byte[] tar = new java.util.zip.GZIPInputStream(new ByteArrayInputStream(gzipped)).readAllBytes();
        int at = 0;
        for (int i = 0; i < index; i++) {
            long size = Long.parseLong(new String(tar, at + 124, 11, StandardCharsets.US_ASCII).strip(), 8);
            at += 512 + (int) ((size + 511) / 512 * 512);
        }
        byte[] field = new byte[12];
        byte[] digits = octal.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(digits, 0, field, 0, digits.length);
        System.arraycopy(field, 0, tar, at + 124, 12);
        java.util.Arrays.fill(tar, at + 148, at + 156, (byte) ' ');
        int sum = 0;
        for (int i = at; i < at + 512; i++) {
            sum += tar[i] & 0xff;
        }
        byte[] check = (String.format("%06o", sum) + "\0 ").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(check, 0, tar, at + 148, 8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(tar);
        }
        return out.toByteArray();
    }

    @Test
    void readsBackWhatItWrote() throws Exception {
        String longName = "data/certificates/acme-v02.api.letsencrypt.org-directory/a-rather-long-site-name"
                + ".example.com/a-rather-long-site-name.example.com.crt";
        List<TarGz.Entry> entries = List.of(file("usher.yaml", "sites: {}\n"),
                new TarGz.Entry("data/ca", 0700, 1L, true, new byte[0]), file(longName, "x".repeat(1000)));
        List<TarGz.Entry> back = TarGz.read(new ByteArrayInputStream(TarGz.bytes(entries)), 1 << 20);
        assertThat(back).hasSize(3);
        assertThat(back.get(0).name()).isEqualTo("usher.yaml");
        assertThat(new String(back.get(0).content(), StandardCharsets.UTF_8)).isEqualTo("sites: {}\n");
        assertThat(back.get(1).directory()).isTrue();
        assertThat(back.get(1).mode()).isEqualTo(0700);
        assertThat(back.get(2).name()).isEqualTo(longName);
        assertThat(back.get(2).content()).hasSize(1000);
        assertThat(back.get(2).mode()).isEqualTo(0600);
    }

    @Test
    void isReadableByTar() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("targz");
        java.nio.file.Path archive = dir.resolve("a.tar.gz");
        java.nio.file.Files.write(archive, TarGz.bytes(List.of(file("usher.yaml", "hello\n"))));
        Process p = new ProcessBuilder("tar", "-tzvf", archive.toString()).redirectErrorStream(true).start();
        String listing = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(listing).isZero();
        assertThat(listing).contains("-rw-------").contains("usher.yaml");
    }

    @Test
    void refusesClimbingAbsoluteAndLinkEntries() throws Exception {
        for (String bad : List.of("data/../../etc/passwd", "/etc/passwd", "data/./x", "data//x")) {
            byte[] archive = TarGz.bytes(List.of(file(bad, "x")));
            assertThatThrownBy(() -> TarGz.read(new ByteArrayInputStream(archive), 1 << 20))
                    .as(bad).isInstanceOf(TarGz.BadArchive.class).hasMessageContaining("refused entry");
        }
        byte[] link = TarGz.bytes(List.of(file("data/link", "")));
        byte[] raw = gunzip(link);
        raw[156] = '2'; // symlink
        fixChecksum(raw);
        assertThatThrownBy(() -> TarGz.read(new ByteArrayInputStream(gzip(raw)), 1 << 20))
                .hasMessageContaining("not a regular file or folder");
    }

    @Test
    void refusesMoreThanTheLimitAndGarbage() throws Exception {
        byte[] big = TarGz.bytes(List.of(file("usher.yaml", "x".repeat(10_000))));
        assertThatThrownBy(() -> TarGz.read(new ByteArrayInputStream(big), 4096)).hasMessageContaining("larger");
        assertThatThrownBy(() -> TarGz.read(new ByteArrayInputStream("not gzip".getBytes()), 4096))
                .isInstanceOf(TarGz.BadArchive.class);
    }

    private static byte[] gunzip(byte[] gz) throws Exception {
        return new java.util.zip.GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes();
    }

    private static byte[] gzip(byte[] raw) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(raw);
        }
        return out.toByteArray();
    }

    private static void fixChecksum(byte[] h) {
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        int sum = 0;
        for (int i = 0; i < 512; i++) {
            sum += h[i] & 0xff;
        }
        byte[] text = (String.format("%06o", sum) + "\0 ").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, h, 148, 8);
    }
}
