package dev.usher.protocol;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The compression choice {@link ResponseCompressor} makes for every request head ({@link CompressAcceptEncoding#choose})
 * on the Accept-Encoding value of current browsers.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AcceptEncodingBenchmark {
    private String chrome = "gzip, deflate, br, zstd";
    private String weighted = "gzip;q=0.8, deflate;q=0.5, zstd;q=1.0, *;q=0";

    @Benchmark
    public String chooseBrowser() {
        return CompressAcceptEncoding.choose(chrome, true);
    }

    @Benchmark
    public String chooseWeighted() {
        return CompressAcceptEncoding.choose(weighted, true);
    }
}
