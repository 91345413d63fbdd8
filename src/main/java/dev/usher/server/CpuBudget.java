package dev.usher.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many event loop threads to run: the CPUs this process may use. The JVM's count already honours cgroup CPU
 * quotas and affinity (a container limited to one CPU reports 1), unlike the host's core count, so a 1-CPU VPS or
 * container gets one event loop and no thread fights another for the same core.
 */
public final class CpuBudget {
    private CpuBudget() {
    }

    /** Event loop threads for this process. */
    public static int eventLoopThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** The machine's online CPUs (ignoring quotas), or -1 when unknown; for the start-up log only. */
    public static int machineCpus() {
        try {
            return countRanges(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Counts CPUs in a kernel CPU list such as {@code 0-3,6,8-9}. */
    static int countRanges(String list) {
        int count = 0;
        for (String part : list.split(",")) {
            int dash = part.indexOf('-');
            if (dash < 0) {
                Integer.parseInt(part.trim());
                count++;
            } else {
                count += Integer.parseInt(part.substring(dash + 1).trim()) - Integer.parseInt(part.substring(0, dash).trim()) + 1;
            }
        }
        return count;
    }
}
