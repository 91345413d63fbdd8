package dev.usher.cert;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Run in a second JVM by {@link NameLockTest}: tries the lock on a name, prints LOCKED or BUSY, and when locked holds
 * it until its standard input closes.
 */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        CertStore store = new CertStore(Path.of(args[0]));
        Optional<NameLock> lock = store.tryLock(args[1], args[2]);
        System.out.println(lock.isPresent() ? "LOCKED" : "BUSY");
        System.out.flush();
        if (lock.isPresent()) {
            while (System.in.read() >= 0) {
                // hold until the parent closes our stdin
            }
            lock.get().close();
        }
    }
}
