package dev.usher.migrate;

/**
 * Where something came from in the set-up being imported.
 *
 * @param format the source's name as people know it ({@code NPM}, {@code Caddyfile}, {@code Traefik},
 *               {@code SSLDocker})
 * @param file   the file it was read from, as given
 * @param place  where in that file: {@code proxy_host 7}, {@code line 12}, {@code router web}
 */
public record Origin(String format, String file, String place) {
    /** The comment written beside a site: {@code from NPM proxy_host 7}. */
    public String comment() {
        return "from " + format + " " + place;
    }

    /** {@code file, place} for the list of what was not converted. */
    public String where() {
        return file + ", " + place;
    }
}
