package dev.usher.config;

import java.nio.file.Path;

/**
 * The top-level {@code access_log:} setting: {@code off} (the default), {@code on} or {@code stdout} (one JSON line
 * per request on standard output), or a file path (appended to; reopened on SIGUSR1). A site may turn it off or on
 * for itself ({@code access_log: false|true} in its long form).
 *
 * @param on   whether requests are logged unless their site says otherwise
 * @param file the file to append to, or null for standard output
 */
public record AccessLogSetting(boolean on, Path file) {
    /** No access log unless a site asks for one (then on standard output). */
    public static final AccessLogSetting OFF = new AccessLogSetting(false, null);
    /** One line per request on standard output. */
    public static final AccessLogSetting STDOUT = new AccessLogSetting(true, null);
}
