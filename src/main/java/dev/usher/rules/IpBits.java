package dev.usher.rules;

/**
 * An IP address as two longs, so that matching and table keys need no objects. IPv4 {@code a.b.c.d} becomes
 * {@code ::ffff:a.b.c.d} (hi 0, lo {@code 0xffff_xxxxxxxx}); IPv6 is its 128 bits, big-endian.
 */
final class IpBits {
    private static final long V4_MAPPED = 0xFFFF_0000_0000L;

    private IpBits() {
    }

    static long hi(byte[] address) {
        return address.length == 4 ? 0 : word(address, 0);
    }

    static long lo(byte[] address) {
        if (address.length == 4) {
            return V4_MAPPED | ((address[0] & 0xFFL) << 24) | ((address[1] & 0xFFL) << 16)
                    | ((address[2] & 0xFFL) << 8) | (address[3] & 0xFFL);
        }
        return word(address, 8);
    }

    private static long word(byte[] bytes, int from) {
        long value = 0;
        for (int i = from; i < from + 8; i++) {
            value = (value << 8) | (bytes[i] & 0xFFL);
        }
        return value;
    }
}
