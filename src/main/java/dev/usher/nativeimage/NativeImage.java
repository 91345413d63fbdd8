package dev.usher.nativeimage;

/** Whether this process is Usher's native executable rather than the JVM running usher.jar. */
public final class NativeImage {
    private NativeImage() {
    }

    /** True in the native executable (GraalVM sets this property to "runtime" in every native image). */
    public static boolean isNativeExecutable() {
        return "runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"));
    }
}
