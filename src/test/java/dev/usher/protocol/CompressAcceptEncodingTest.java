package dev.usher.protocol;

import org.junit.jupiter.api.Test;

import static dev.usher.protocol.CompressAcceptEncoding.choose;
import static org.assertj.core.api.Assertions.assertThat;

class CompressAcceptEncodingTest {
    @Test
    void prefersZstdThenGzipWhenTheClientWeighsThemAlike() {
        assertThat(choose("gzip, deflate, br, zstd", true)).isEqualTo("zstd");
        assertThat(choose("gzip, deflate, br, zstd", false)).isEqualTo("gzip");
        assertThat(choose("gzip, deflate, br", true)).isEqualTo("gzip");
    }

    @Test
    void theClientsWeightsComeBeforeUshersPreference() {
        assertThat(choose("zstd;q=0.5, gzip", true)).isEqualTo("gzip");
        assertThat(choose("gzip;q=0.4, zstd;q=0.5", true)).isEqualTo("zstd");
        assertThat(choose("gzip ; q=0.9 , zstd ; Q=0.8", true)).isEqualTo("gzip");
    }

    @Test
    void zeroWeightRefusesACodingEvenUnderAStar() {
        assertThat(choose("gzip;q=0", true)).isNull();
        assertThat(choose("gzip;q=0.000, identity", true)).isNull();
        assertThat(choose("zstd;q=0, *", true)).isEqualTo("gzip");
        assertThat(choose("*;q=0", true)).isNull();
        assertThat(choose("*;q=0, gzip", true)).isEqualTo("gzip");
    }

    @Test
    void starCoversCodingsNotNamed() {
        assertThat(choose("*", true)).isEqualTo("zstd");
        assertThat(choose("*", false)).isEqualTo("gzip");
        assertThat(choose("br, *;q=0.1", false)).isEqualTo("gzip");
    }

    @Test
    void identityEmptyOrUnknownCodingsMeanNoCompression() {
        assertThat(choose(null, true)).isNull();
        assertThat(choose("", true)).isNull();
        assertThat(choose(" , ,", true)).isNull();
        assertThat(choose("identity", true)).isNull();
        assertThat(choose("br, deflate, compress", true)).isNull();
        // Substrings are not codings (a lax parser would see "gzip" in these).
        assertThat(choose("x-gzipped, gzipx", true)).isNull();
    }

    @Test
    void namesAreCaseInsensitiveAndXGzipIsGzip() {
        assertThat(choose("GZIP", true)).isEqualTo("gzip");
        assertThat(choose("ZStd", true)).isEqualTo("zstd");
        assertThat(choose("x-gzip", true)).isEqualTo("gzip");
    }

    @Test
    void anInvalidWeightCountsAsZero() {
        assertThat(choose("gzip;q=2", true)).isNull();
        assertThat(choose("gzip;q=1.5", true)).isNull();
        assertThat(choose("gzip;q=abc", true)).isNull();
        assertThat(choose("gzip;q=0.1234", true)).isNull();
        assertThat(choose("gzip;q=", true)).isNull();
        assertThat(choose("gzip;q=1.000;level=3", true)).isEqualTo("gzip");
    }

    @Test
    void parsesQvaluesInThousandths() {
        assertThat(CompressAcceptEncoding.qvalue("1")).isEqualTo(1000);
        assertThat(CompressAcceptEncoding.qvalue("1.0")).isEqualTo(1000);
        assertThat(CompressAcceptEncoding.qvalue("0.5")).isEqualTo(500);
        assertThat(CompressAcceptEncoding.qvalue("0.05")).isEqualTo(50);
        assertThat(CompressAcceptEncoding.qvalue("0.001")).isEqualTo(1);
        assertThat(CompressAcceptEncoding.qvalue("0.")).isEqualTo(0);
        assertThat(CompressAcceptEncoding.qvalue(".5")).isEqualTo(0);
        assertThat(CompressAcceptEncoding.qvalue("1.001")).isEqualTo(0);
    }
}
