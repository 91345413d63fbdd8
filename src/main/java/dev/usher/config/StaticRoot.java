package dev.usher.config;

import java.nio.file.Path;
import java.util.List;

/**
 * A site (or part of one) served from a folder instead of backends ({@code root:}).
 *
 * @param root          the folder, absolute (a relative {@code root:} starts at the config file's folder)
 * @param index         file names tried, in order, for a request that names a folder; default {@code index.html}
 * @param browse        a folder without an index file gets a listing (default false: 404)
 * @param spa           for a single-page app: the file (relative to the root) served for any path that names no
 *                      file or folder, or null for a 404
 * @param precompressed serve {@code name.zst} or {@code name.gz} beside {@code name} to clients that accept it
 *                      (default true)
 */
public record StaticRoot(Path root, List<String> index, boolean browse, String spa, boolean precompressed) {
    public static final List<String> DEFAULT_INDEX = List.of("index.html");

    public StaticRoot {
        index = List.copyOf(index);
    }
}
