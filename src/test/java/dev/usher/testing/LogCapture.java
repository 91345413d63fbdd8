package dev.usher.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Collects what is logged at INFO or above while open: Usher's System.Logger and Netty (through SLF4J) both end in
 * java.util.logging in the tests.
 */
public final class LogCapture extends Handler implements AutoCloseable {
    public final List<String> records = new CopyOnWriteArrayList<>();
    /** Fills in a message's {0} parameters (System.Logger hands them over apart). */
    private final SimpleFormatter formatter = new SimpleFormatter();

    public LogCapture() {
        setLevel(Level.INFO);
        Logger.getLogger("").addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.INFO.intValue()) {
            records.add(record.getLevel() + " " + record.getLoggerName() + ": " + formatter.formatMessage(record)
                    + (record.getThrown() == null ? "" : " " + record.getThrown()));
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
