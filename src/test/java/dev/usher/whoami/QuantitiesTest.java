package dev.usher.whoami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QuantitiesTest {

    @Test
    void parsesSizesWithSiAndBinaryUnits() {
        assertThat(Quantities.parseSize("0")).isZero();
        assertThat(Quantities.parseSize("1234")).isEqualTo(1234);
        assertThat(Quantities.parseSize("12B")).isEqualTo(12);
        assertThat(Quantities.parseSize("64KB")).isEqualTo(64_000);
        assertThat(Quantities.parseSize("64k")).isEqualTo(64_000);
        assertThat(Quantities.parseSize("64KiB")).isEqualTo(65_536);
        assertThat(Quantities.parseSize("50MiB")).isEqualTo(50L << 20);
        assertThat(Quantities.parseSize("2mb")).isEqualTo(2_000_000);
        assertThat(Quantities.parseSize("3GiB")).isEqualTo(3L << 30);
        assertThat(Quantities.parseSize("1 GB")).isEqualTo(1_000_000_000L);
    }

    @Test
    void rejectsBadSizes() {
        assertThatThrownBy(() -> Quantities.parseSize("-1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Quantities.parseSize("1.5MB")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Quantities.parseSize("12XB")).hasMessageContaining("unit");
        assertThatThrownBy(() -> Quantities.parseSize("99999999999TiB")).hasMessageContaining("too large");
    }

    @Test
    void parsesGoStyleDurations() {
        assertThat(Quantities.parseDurationNanos("2s")).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(Quantities.parseDurationNanos("150ms")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
        assertThat(Quantities.parseDurationNanos("1.5s")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
        assertThat(Quantities.parseDurationNanos("1m30s")).isEqualTo(TimeUnit.SECONDS.toNanos(90));
        assertThat(Quantities.parseDurationNanos("250us")).isEqualTo(250_000);
        assertThat(Quantities.parseDurationNanos("40")).as("bare number = ms").isEqualTo(40_000_000);
    }

    @Test
    void rejectsBadDurations() {
        assertThatThrownBy(() -> Quantities.parseDurationNanos("soon")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Quantities.parseDurationNanos("5 s")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Quantities.parseDurationNanos("1s2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Quantities.parseDurationNanos("2h")).hasMessageContaining("too long");
    }
}
