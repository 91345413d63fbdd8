package dev.usher.rules;

import dev.usher.config.Cidr;

import java.net.InetAddress;
import java.util.Collection;
import java.util.List;

/**
 * The addresses and ranges banned right now (by CrowdSec's decisions), consulted for every new connection and every
 * request. Replaced as a whole by the thread that follows the decision stream; read lock-free by event loops
 * through one volatile field. Single addresses sit in an open-addressing table of (hi, lo) pairs, so a lookup is a
 * hash and a few comparisons without objects; ranges (few, usually) are matched one by one.
 */
public final class Bans {
    private volatile Snapshot current = Snapshot.EMPTY;

    /** True when some address or range is banned: a quick test that lets the checks be skipped. */
    public boolean active() {
        return current.size() > 0;
    }

    /** True when {@code address} is banned. */
    public boolean banned(InetAddress address) {
        if (address == null) {
            return false;
        }
        Snapshot s = current;
        if (s.size() == 0) {
            return false;
        }
        byte[] bytes = address.getAddress();
        return s.contains(bytes.length == 16, IpBits.hi(bytes), IpBits.lo(bytes));
    }

    boolean banned(boolean v6, long hi, long lo) {
        Snapshot s = current;
        return s.size() > 0 && s.contains(v6, hi, lo);
    }

    /** How many addresses and ranges are banned. */
    public int size() {
        return current.size();
    }

    /** From now on exactly these are banned (an empty collection lifts every ban). */
    public void replace(Collection<InetAddress> addresses, List<Cidr> ranges) {
        current = Snapshot.of(addresses, ranges);
    }

    /** An immutable set of banned addresses and ranges. */
    private static final class Snapshot {
        static final Snapshot EMPTY = new Snapshot(new long[12], 0, new IpNetworks(List.of()), 0);
        /** The first word of a slot: 0 while the slot is free, 1 once it holds an address. */
        private static final long EMPTY_SLOT = 0;

        /** Slots of three words: the used flag, the address's hi and lo bits. */
        private final long[] table;
        private final int addresses;
        private final IpNetworks ranges;
        private final int rangeCount;

        private Snapshot(long[] table, int addresses, IpNetworks ranges, int rangeCount) {
            this.table = table;
            this.addresses = addresses;
            this.ranges = ranges;
            this.rangeCount = rangeCount;
        }

        static Snapshot of(Collection<InetAddress> addresses, List<Cidr> ranges) {
            int slots = Integer.highestOneBit(Math.max(4, addresses.size() * 2 - 1)) << 1;
            long[] table = new long[slots * 3]; // used flag, hi, lo
            int count = 0;
            for (InetAddress address : addresses) {
                byte[] bytes = address.getAddress();
                if (insert(table, slots, bytes.length == 16, IpBits.hi(bytes), IpBits.lo(bytes))) {
                    count++;
                }
            }
            return new Snapshot(table, count, new IpNetworks(ranges), ranges.size());
        }

        int size() {
            return addresses + rangeCount;
        }

        boolean contains(boolean v6, long hi, long lo) {
            if (addresses > 0) {
                int slots = table.length / 3;
                int i = slot(hi, lo, slots);
                while (table[i * 3] != EMPTY_SLOT) {
                    if (table[i * 3 + 1] == hi && table[i * 3 + 2] == lo) {
                        return true;
                    }
                    i = (i + 1) & (slots - 1);
                }
            }
            return rangeCount > 0 && ranges.contains(v6, hi, lo);
        }

        private static boolean insert(long[] table, int slots, boolean v6, long hi, long lo) {
            int i = slot(hi, lo, slots);
            while (table[i * 3] != EMPTY_SLOT) {
                if (table[i * 3 + 1] == hi && table[i * 3 + 2] == lo) {
                    return false;
                }
                i = (i + 1) & (slots - 1);
            }
            table[i * 3] = 1;
            table[i * 3 + 1] = hi;
            table[i * 3 + 2] = lo;
            return true;
        }

        private static int slot(long hi, long lo, int slots) {
            long h = (hi * 0x9E3779B97F4A7C15L) ^ (lo * 0xC2B2AE3D27D4EB4FL);
            return (int) (h ^ (h >>> 29)) & (slots - 1);
        }

        @Override
        public String toString() {
            return "Bans[" + addresses + " addresses, " + rangeCount + " ranges]";
        }
    }
}
