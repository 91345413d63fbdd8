package dev.usher.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicTokenHandler;

import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.function.IntSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * QUIC address validation with Retry (RFC 9000 §8.1.2), asked for only under load, as Caddy does: while fewer than
 * {@code threshold} handshakes are under way a client is served at once; past it, a client without a token gets a
 * Retry packet carrying a token, and only a client that answers from its address with that token gets connection
 * state. Initial packets from spoofed addresses then cost one stateless Retry each, no connection.
 *
 * <p>A token is its mint time, an HMAC-SHA256 (truncated to 16 bytes, key random per listener) over that time, the
 * client's IP and port and the original destination connection ID, then that connection ID. It is good for
 * {@link #LIFETIME_NANOS}. Netty's {@code InsecureQuicTokenHandler} is not used: its tokens carry no MAC, so anyone
 * can forge one for any address.
 *
 * <p>Threading: called by the QUIC codec on the UDP socket's event loop only (the MAC is not thread-safe).
 */
public final class QuicRetryTokens implements QuicTokenHandler {
    /** Handshakes under way past which Retry is asked for. A real client's handshake takes a few round trips. */
    public static final int DEFAULT_THRESHOLD = 100;
    /** How long a Retry token is good: the client sends it back at once (one round trip). */
    static final long LIFETIME_NANOS = 10_000_000_000L;
    private static final int TIME_LENGTH = Long.BYTES;
    private static final int MAC_LENGTH = 16;
    private static final int MAX_CONNECTION_ID = 20;

    private final IntSupplier handshakesInFlight;
    private final int threshold;
    private final Mac mac;

    /**
     * @param handshakesInFlight how many handshakes are under way now
     * @param threshold          from how many on Retry is asked for (0: always)
     */
    public QuicRetryTokens(IntSupplier handshakesInFlight, int threshold) {
        this.handshakesInFlight = handshakesInFlight;
        this.threshold = threshold;
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    @Override
    public boolean writeToken(ByteBuf out, ByteBuf dcid, InetSocketAddress address) {
        if (handshakesInFlight.getAsInt() < threshold) {
            return false; // no Retry: the connection is set up at once
        }
        long minted = System.nanoTime();
        out.writeLong(minted);
        out.writeBytes(sign(minted, address, dcid, dcid.readerIndex(), dcid.readableBytes()));
        out.writeBytes(dcid, dcid.readerIndex(), dcid.readableBytes());
        return true;
    }

    @Override
    public int validateToken(ByteBuf token, InetSocketAddress address) {
        int idStart = TIME_LENGTH + MAC_LENGTH;
        int idLength = token.readableBytes() - idStart;
        if (idLength < 0 || idLength > MAX_CONNECTION_ID) {
            return -1;
        }
        long minted = token.getLong(token.readerIndex());
        long age = System.nanoTime() - minted;
        if (age < 0 || age > LIFETIME_NANOS) {
            return -1;
        }
        byte[] expected = sign(minted, address, token, token.readerIndex() + idStart, idLength);
        byte[] given = new byte[MAC_LENGTH];
        token.getBytes(token.readerIndex() + TIME_LENGTH, given);
        return MessageDigest.isEqual(expected, given) ? idStart : -1;
    }

    @Override
    public int maxTokenLength() {
        return TIME_LENGTH + MAC_LENGTH + MAX_CONNECTION_ID;
    }

    private byte[] sign(long minted, InetSocketAddress address, ByteBuf id, int idStart, int idLength) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            mac.update((byte) (minted >>> shift));
        }
        mac.update(address.getAddress().getAddress());
        mac.update((byte) (address.getPort() >>> 8));
        mac.update((byte) address.getPort());
        byte[] idBytes = new byte[idLength];
        id.getBytes(idStart, idBytes);
        mac.update(idBytes);
        byte[] full = mac.doFinal();
        byte[] truncated = new byte[MAC_LENGTH];
        System.arraycopy(full, 0, truncated, 0, MAC_LENGTH);
        return truncated;
    }
}
