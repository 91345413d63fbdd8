package dev.usher.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** One line per log record on stderr: {@code 2026-11-30T12:00:00.123Z INFO  message}. */
final class LogFormat extends Formatter {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    /** Replaces the JDK's two-line console format; Netty's own chatter is kept at WARNING and above. */
    static void install(boolean debug) {
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler console = new ConsoleHandler();
        console.setFormatter(new LogFormat());
        console.setLevel(Level.ALL);
        root.addHandler(console);
        root.setLevel(debug ? Level.FINE : Level.INFO);
        Logger.getLogger("io.netty").setLevel(debug ? Level.INFO : Level.WARNING);
    }

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(128)
                .append(TIME.format(Instant.ofEpochMilli(record.getMillis()))).append(' ')
                .append(levelName(record.getLevel())).append(' ')
                .append(formatMessage(record)).append('\n');
        if (record.getThrown() != null && record.getLevel().intValue() >= Level.WARNING.intValue()) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            line.append(trace);
        }
        return line.toString();
    }

    private static String levelName(Level level) {
        if (level.intValue() >= Level.SEVERE.intValue()) {
            return "ERROR";
        }
        if (level.intValue() >= Level.WARNING.intValue()) {
            return "WARN ";
        }
        if (level.intValue() >= Level.INFO.intValue()) {
            return "INFO ";
        }
        return "DEBUG";
    }
}
