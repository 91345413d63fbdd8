package dev.usher.tls;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what is logged at INFO or above (Netty logs through SLF4J into java.util.logging here) while open. */
final class LogCapture extends Handler implements AutoCloseable {
    final List<String> records = new CopyOnWriteArrayList<>();

    LogCapture() {
        setLevel(Level.INFO);
        Logger.getLogger("").addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.INFO.intValue()) {
            records.add(record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage()
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
