package dev.usher.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClientHelloTest {
    private static ClientHello parse(byte[] body) {
        ByteBuf buf = Unpooled.wrappedBuffer(body);
        try {
            return ClientHello.parse(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void readsServerNameInLowerCaseAndAlpnInOrder() {
        ClientHello hello = parse(Hellos.body(Hellos.TLS_1_2, "A.Test", List.of("h2", "http/1.1")));
        assertThat(hello).isEqualTo(new ClientHello("a.test", List.of("h2", "http/1.1")));
    }

    @Test
    void helloWithoutSniOrAlpnHasNeither() {
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, null, List.of()))).isEqualTo(new ClientHello(null, List.of()));
    }

    @Test
    void dropsOneTrailingDot() {
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, "a.test.", List.of())).serverName()).isEqualTo("a.test");
    }

    @Test
    void refusesNamesThatCannotBeHostNames() {
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, "*.a.test", List.of()))).isNull();
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, "a test", List.of()))).isNull();
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, "a\u0000.test", List.of()))).isNull();
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, "x".repeat(254), List.of()))).isNull();
    }

    @Test
    void everyTruncationIsMalformedNeverAnException() {
        byte[] body = Hellos.body(Hellos.TLS_1_2, "a.test", List.of("acme-tls/1"));
        for (int length = 0; length < body.length; length++) {
            // Cutting inside the fixed part or a vector breaks a length; the only legal cut is before extensions.
            ClientHello hello = parse(java.util.Arrays.copyOf(body, length));
            assertThat(hello == null || hello.equals(new ClientHello(null, List.of())))
                    .as("truncated to %d bytes", length).isTrue();
        }
    }

    @Test
    void randomBytesAndFlippedBytesNeverThrow() {
        Random random = new Random(42);
        byte[] body = Hellos.body(Hellos.TLS_1_2, "a.test", List.of("h2"));
        for (int i = 0; i < 20_000; i++) {
            byte[] noise = new byte[random.nextInt(300)];
            random.nextBytes(noise);
            parse(noise);
            byte[] flipped = body.clone();
            flipped[random.nextInt(flipped.length)] = (byte) random.nextInt(256);
            parse(flipped);
        }
    }

    @Test
    void duplicateSniExtensionIsMalformed() {
        byte[] body = Hellos.body(Hellos.TLS_1_2, "a.test", List.of());
        // extensions start after version, random, session id, suites, compression; duplicate the first (SNI)
        int start = 2 + 32 + 1 + 2 + 8 + 2;
        int extensionsLength = ((body[start] & 0xFF) << 8) | (body[start + 1] & 0xFF);
        int sniLength = 4 + (((body[start + 4] & 0xFF) << 8) | (body[start + 5] & 0xFF));
        byte[] doubled = new byte[body.length + sniLength];
        System.arraycopy(body, 0, doubled, 0, start + 2 + sniLength);
        System.arraycopy(body, start + 2, doubled, start + 2 + sniLength, body.length - start - 2);
        doubled[start] = (byte) ((extensionsLength + sniLength) >>> 8);
        doubled[start + 1] = (byte) (extensionsLength + sniLength);
        assertThat(parse(doubled)).isNull();
    }

    @Test
    void emptyAlpnNameIsMalformed() {
        assertThat(parse(Hellos.body(Hellos.TLS_1_2, "a.test", List.of("h2", "")))).isNull();
    }
}
