package dev.usher.observe;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * JVM memory for the metrics: heap and non-heap (used, committed), the JDK's buffer pools (direct, mapped) and the
 * direct memory of Netty's default allocator (which the JDK's direct pool does not see when Netty allocates without a
 * cleaner). Uses {@code java.management}; the MXBeans are looked up on the first scrape, not at start, so a server
 * nobody scrapes does not load them.
 */
final class JvmMetrics implements MetricsSource {
    private MemoryMXBean memory;
    private List<BufferPoolMXBean> buffers;

    @Override
    public synchronized void write(PrometheusText out) {
        // synchronized: only against two scrapes at once, never on a request's path.
        if (memory == null) {
            memory = ManagementFactory.getMemoryMXBean();
            buffers = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class);
        }
        MemoryUsage heap = memory.getHeapMemoryUsage();
        MemoryUsage nonHeap = memory.getNonHeapMemoryUsage();
        out.family("jvm_memory_used_bytes", "gauge", "Memory in use by the JVM, by area.")
                .sample("jvm_memory_used_bytes", heap.getUsed(), "area", "heap")
                .sample("jvm_memory_used_bytes", nonHeap.getUsed(), "area", "nonheap");
        out.family("jvm_memory_committed_bytes", "gauge", "Memory committed by the JVM, by area.")
                .sample("jvm_memory_committed_bytes", heap.getCommitted(), "area", "heap")
                .sample("jvm_memory_committed_bytes", nonHeap.getCommitted(), "area", "nonheap");
        out.family("jvm_buffer_pool_used_bytes", "gauge", "Memory used by the JDK's buffer pools.");
        for (BufferPoolMXBean pool : buffers) {
            out.sample("jvm_buffer_pool_used_bytes", pool.getMemoryUsed(), "pool", pool.getName());
        }
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider netty) {
            out.family("usher_netty_direct_memory_bytes", "gauge", "Direct memory held by Netty's allocator.")
                    .sample("usher_netty_direct_memory_bytes", netty.metric().usedDirectMemory());
        }
    }
}
