/*
 * The builder's own helper library (com.oracle.svm.hosted.ProgressReporterCHelper): its peak memory and the
 * terminal's width for the build report. Loaded by the builder JVM from java.home/lib/svm/builder/lib, which is
 * why native/toolchain.sh gives the builder a view of the JDK (builder-jdk/). Written for Usher's native build.
 */
#include <jni.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

JNIEXPORT jlong JNICALL Java_com_oracle_svm_hosted_ProgressReporterCHelper_getPeakRSS0(JNIEnv *env, jclass cls) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) {
        return -1;
    }
    return (jlong)usage.ru_maxrss * 1024; /* Linux reports kilobytes */
}

JNIEXPORT jint JNICALL Java_com_oracle_svm_hosted_ProgressReporterCHelper_getTerminalWindowColumns0(JNIEnv *env,
                                                                                                 jclass cls) {
    struct winsize size;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) {
        return 80;
    }
    return size.ws_col;
}
