/**
 * What only Usher's native executable needs (native/build.sh makes it): the start-up check that its native
 * libraries loaded, and {@code usher selftest}, which exercises them and the JDK natives the native build patches.
 * Depends on Netty and the JDK only; used by {@code cli}.
 */
package dev.usher.nativeimage;
