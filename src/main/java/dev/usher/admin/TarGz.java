package dev.usher.admin;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The backup archive's format: gzip-compressed POSIX ustar, written and read by hand (no library for one format of
 * our own). Only regular files and folders are written; reading refuses everything else (links, devices, pax
 * headers), names that are absolute or climb with {@code ..}, bad checksums, and more than {@code limit} bytes of
 * uncompressed content (a gzip bomb stops there).
 */
final class TarGz {
    private static final int BLOCK = 512;

    /**
     * One archive member. {@code mode}: POSIX permission bits; {@code directory}: a folder (no content); the content
     * is {@code content}, or when that is null the file {@code source} of {@code size} bytes, read when written.
     */
    record Entry(String name, int mode, long mtimeSeconds, boolean directory, byte[] content, Path source,
                 long size) {
        Entry(String name, int mode, long mtimeSeconds, boolean directory, byte[] content) {
            this(name, mode, mtimeSeconds, directory, content, null, content.length);
        }
    }

    /** An archive that is not one of ours or breaks a rule; nothing was written. */
    static final class BadArchive extends IOException {
        private static final long serialVersionUID = 1L;

        BadArchive(String message) {
            super(message);
        }
    }

    private TarGz() {
    }

    /** Writes {@code entries} as a tar.gz to {@code out} (not closed). */
    static void write(OutputStream out, List<Entry> entries) throws IOException {
        GZIPOutputStream gzip = new GZIPOutputStream(out, 8192);
        for (Entry e : entries) {
            byte[] content = e.directory() ? new byte[0]
                    : e.content() != null ? e.content() : java.nio.file.Files.readAllBytes(e.source());
            if (content.length != e.size() && !e.directory()) {
                throw new IOException(e.source() + " changed while the backup was made; try again");
            }
            gzip.write(header(e));
            if (!e.directory()) {
                gzip.write(content);
                gzip.write(new byte[(BLOCK - content.length % BLOCK) % BLOCK]);
            }
        }
        gzip.write(new byte[2 * BLOCK]);
        gzip.finish();
    }

    /** Reads a tar.gz of regular files and folders, at most {@code limit} bytes uncompressed. */
    static List<Entry> read(InputStream in, long limit) throws IOException {
        List<Entry> entries = new ArrayList<>();
        long total = 0;
        try (InputStream gzip = new GZIPInputStream(in)) {
            byte[] header = new byte[BLOCK];
            while (true) {
                if (!readFully(gzip, header)) {
                    throw new BadArchive("the archive ends without its end marker");
                }
                if (allZero(header)) {
                    return entries;
                }
                checkSum(header);
                if (!text(header, 257, 5).equals("ustar")) {
                    throw new BadArchive("not a ustar archive");
                }
                String name = text(header, 0, 100);
                String prefix = text(header, 345, 155);
                if (!prefix.isEmpty()) {
                    name = prefix + "/" + name;
                }
                char type = (char) header[156];
                long size = octal(header, 124, 12);
                int mode = (int) octal(header, 100, 8) & 07777;
                long mtime = octal(header, 136, 12);
                checkName(name);
                // a negative size would lower the total below and let later entries past the limit
                if (size < 0 || type == '5' && size != 0) {
                    throw new BadArchive("a damaged archive (size " + size + " for \"" + name + "\")");
                }
                total += size + BLOCK;
                if (total > limit || entries.size() > 100_000) {
                    throw new BadArchive("the archive is larger than " + (limit >> 20) + " MiB unpacked");
                }
                if (type == '5') {
                    entries.add(new Entry(stripSlash(name), mode, mtime, true, new byte[0]));
                    continue;
                }
                if (type != '0' && type != '\0') {
                    throw new BadArchive("\"" + name + "\" is not a regular file or folder (type " + type
                            + "); backups hold only those");
                }
                byte[] content = new byte[(int) size];
                if (!readFully(gzip, content) || !readFully(gzip, new byte[(int) ((BLOCK - size % BLOCK) % BLOCK)])) {
                    throw new BadArchive("the archive ends inside \"" + name + "\"");
                }
                entries.add(new Entry(name, mode, mtime, false, content));
            }
        } catch (EOFException | java.util.zip.ZipException e) {
            throw new BadArchive("not a gzip-compressed archive, or a damaged one: " + e.getMessage());
        }
    }

    private static void checkName(String name) throws BadArchive {
        if (name.isEmpty() || name.startsWith("/") || name.contains("\\") || name.contains("\0")) {
            throw new BadArchive("refused entry \"" + name + "\": only relative names");
        }
        for (String part : stripSlash(name).split("/", -1)) {
            if (part.equals("..") || part.equals(".") || part.isEmpty()) {
                throw new BadArchive("refused entry \"" + name + "\": no \"..\", \".\" or empty parts");
            }
        }
    }

    private static String stripSlash(String name) {
        return name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
    }

    private static byte[] header(Entry e) throws IOException {
        byte[] h = new byte[BLOCK];
        String name = e.directory() ? e.name() + "/" : e.name();
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        String prefix = "";
        if (bytes.length > 100) {
            int slash = -1;
            for (int i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) {
                String rest = name.substring(i + 1);
                if (!rest.isEmpty() && rest.getBytes(StandardCharsets.UTF_8).length <= 100) {
                    slash = i;
                    break;
                }
            }
            if (slash <= 0 || name.substring(0, slash).getBytes(StandardCharsets.UTF_8).length > 155) {
                throw new IOException("a file name is too long for the backup archive: " + name);
            }
            prefix = name.substring(0, slash);
            name = name.substring(slash + 1);
        }
        put(h, 0, 100, name);
        put(h, 100, 8, String.format("%07o", e.mode() & 07777));
        put(h, 108, 8, "0000000");
        put(h, 116, 8, "0000000");
        put(h, 124, 12, String.format("%011o", e.directory() ? 0 : e.size()));
        put(h, 136, 12, String.format("%011o", Math.max(0, e.mtimeSeconds())));
        h[156] = (byte) (e.directory() ? '5' : '0');
        put(h, 257, 6, "ustar");
        put(h, 263, 2, "00");
        put(h, 345, 155, prefix);
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        put(h, 148, 8, String.format("%06o", sum(h)) + "\0 ");
        return h;
    }

    private static void put(byte[] h, int at, int length, String value) {
        byte[] b = value.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(b, 0, h, at, Math.min(length, b.length));
    }

    private static int sum(byte[] h) {
        int s = 0;
        for (byte b : h) {
            s += b & 0xff;
        }
        return s;
    }

    private static void checkSum(byte[] h) throws BadArchive {
        long stored = octal(h, 148, 8);
        byte[] copy = h.clone();
        for (int i = 148; i < 156; i++) {
            copy[i] = ' ';
        }
        if (stored != sum(copy)) {
            throw new BadArchive("a damaged archive (bad header checksum)");
        }
    }

    private static String text(byte[] h, int at, int length) {
        int end = at;
        while (end < at + length && h[end] != 0) {
            end++;
        }
        return new String(h, at, end - at, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] h, int at, int length) throws BadArchive {
        String s = text(h, at, length).strip();
        if (s.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(s, 8);
        } catch (NumberFormatException e) {
            throw new BadArchive("a damaged archive (bad number in a header)");
        }
    }

    private static boolean allZero(byte[] h) {
        for (byte b : h) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean readFully(InputStream in, byte[] into) throws IOException {
        int at = 0;
        while (at < into.length) {
            int n = in.read(into, at, into.length - at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return true;
    }

    /** The archive of {@code entries} in memory (backups are small: a config and certificates). */
    static byte[] bytes(List<Entry> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, entries);
        return out.toByteArray();
    }
}
