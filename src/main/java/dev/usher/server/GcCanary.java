package dev.usher.server;

import java.lang.ref.WeakReference;

/**
 * Tells whether the garbage collector has run since the last look: an object reachable only through a weak reference
 * is cleared by the first collection that looks at it, and a new one starts young, so even a young collection
 * clears it. Costs one small object per collection seen; needs no management beans.
 */
final class GcCanary {
    private WeakReference<Object> canary = new WeakReference<>(new Object());

    /** True when a collection ran since the last call (or since this canary was made). */
    boolean collectedSinceLastLook() {
        if (!canary.refersTo(null)) {
            return false;
        }
        canary = new WeakReference<>(new Object());
        return true;
    }
}
