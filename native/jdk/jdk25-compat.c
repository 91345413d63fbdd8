/*
 * The JDK 25 contracts of the natives whose C code changed by JDK 26, the version of the Debian source package the
 * static libraries are compiled from (native/jdk/static-libs.sh). Each one is exercised by the native executable's
 * self-test (`usher selftest`, dev.usher.nativeimage.JdkNativesCheck) and so by NativeSelfTestIT.
 * Written for Usher's native build.
 */
#include <errno.h>
#include <jni.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Linux's address family for the Sockets Direct Protocol (InfiniBand), as the JDK's SdpSupport uses it. */
#define USHER_AF_INET_SDP 27

static void throw_unix_exception(JNIEnv *env, int errnum) {
    jclass type = (*env)->FindClass(env, "sun/nio/fs/UnixException");
    if (type == NULL) {
        return; /* FindClass threw */
    }
    jmethodID init = (*env)->GetMethodID(env, type, "<init>", "(I)V");
    if (init == NULL) {
        return;
    }
    jobject exception = (*env)->NewObject(env, type, init, (jint)errnum);
    if (exception != NULL) {
        (*env)->Throw(env, (jthrowable)exception);
    }
}

/* An IOException whose message is the OS's error, as JNU_ThrowIOExceptionWithLastError makes it. */
static void throw_io_exception(JNIEnv *env, int errnum) {
    jclass type = (*env)->FindClass(env, "java/io/IOException");
    if (type != NULL) {
        (*env)->ThrowNew(env, type, strerror(errnum));
    }
}

/*
 * sun.nio.fs.UnixNativeDispatcher.fstatat0: JDK 26 returns the errno, JDK 25's Java code expects a UnixException
 * (without it, a missing file would read as one with all-zero attributes).
 */
jint usher_jdk26_UnixNativeDispatcher_fstatat0(JNIEnv *env, jclass cls, jint dfd, jlong path, jint flag,
                                               jobject attrs);

JNIEXPORT void JNICALL Java_sun_nio_fs_UnixNativeDispatcher_fstatat0(JNIEnv *env, jclass cls, jint dfd, jlong path,
                                                                     jint flag, jobject attrs) {
    jint err = usher_jdk26_UnixNativeDispatcher_fstatat0(env, cls, dfd, path, flag, attrs);
    if (err != 0 && !(*env)->ExceptionCheck(env)) {
        throw_unix_exception(env, err);
    }
}

/* libnet's: whether this machine has IPv6 (net_util.c). */
JNIEXPORT jint JNICALL ipv6_available(void);

/*
 * sun.net.sdp.SdpSupport (JDK 25; removed in 26): an SDP socket, and turning a TCP socket into one. Reached only
 * when com.sun.sdp.conf names a rules file. As in JDK 25, SDP is refused where IPv6 is available (Linux's SDP has
 * no IPv6), and fails with the OS's error on a kernel without SDP.
 */
JNIEXPORT jint JNICALL Java_sun_net_sdp_SdpSupport_create0(JNIEnv *env, jclass cls) {
    (void)cls;
    if (ipv6_available()) {
        jclass type = (*env)->FindClass(env, "java/io/IOException");
        if (type != NULL) {
            (*env)->ThrowNew(env, type, "IPv6 not supported");
        }
        return -1;
    }
    int fd = socket(USHER_AF_INET_SDP, SOCK_STREAM, 0);
    if (fd < 0) {
        throw_io_exception(env, errno);
    }
    return fd;
}

JNIEXPORT void JNICALL Java_sun_net_sdp_SdpSupport_convert0(JNIEnv *env, jclass cls, jint fd) {
    int sdp = (int)Java_sun_net_sdp_SdpSupport_create0(env, cls);
    if (sdp < 0) {
        return;
    }
    int rc;
    do {
        rc = dup2(sdp, fd);
    } while (rc < 0 && errno == EINTR);
    int saved = errno;
    close(sdp);
    if (rc < 0) {
        throw_io_exception(env, saved);
    }
}
