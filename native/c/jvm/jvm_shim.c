/*
 * libjvm.a for Usher's native executable: the JVM_* functions that the JDK's own C code (libjava, libnio, libnet,
 * ...) calls into HotSpot, answered without a HotSpot. SubstrateVM links this archive into every image that links
 * the JDK's static libraries. Written for this repository from the declarations in the JDK's jvm.h; the functions
 * the JDK libraries Usher uses really call are implemented, the rest fail loudly (jvm_unsupported) so that a missing
 * one shows up as a clear message, never as a silent wrong answer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <jni.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The JDK's jvm.h version of this interface (JDK 9 and later). */
#define USHER_JVM_INTERFACE_VERSION 6

/* Retries a system call that was interrupted by a signal. */
#define RETRY_ON_EINTR(expr)                                                                                           \
    ({                                                                                                                 \
        __typeof__(expr) result_;                                                                                      \
        do {                                                                                                           \
            result_ = (expr);                                                                                          \
        } while (result_ == -1 && errno == EINTR);                                                                     \
        result_;                                                                                                       \
    })

static void jvm_unsupported(const char *name) {
    fprintf(stderr, "usher (native): the JDK called %s, which this executable's libjvm shim does not provide\n", name);
    abort();
}

/* Called by SubstrateVM once at start-up; nothing to set up. */
JNIEXPORT void JNICALL initialize(void) {}

JNIEXPORT jint JNICALL JVM_GetInterfaceVersion(void) { return USHER_JVM_INTERFACE_VERSION; }

/* The CPUs this process may run on (its affinity mask, so taskset and cpusets count), at least 1. */
JNIEXPORT jint JNICALL JVM_ActiveProcessorCount(void) {
    long configured = sysconf(_SC_NPROCESSORS_CONF);
    int ncpus = configured > CPU_SETSIZE ? (int)configured : CPU_SETSIZE;
    cpu_set_t *set = CPU_ALLOC(ncpus);
    size_t size = CPU_ALLOC_SIZE(ncpus);
    int count = 0;
    if (set != NULL) {
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            count = CPU_COUNT_S(size, set);
        }
        CPU_FREE(set);
    }
    if (count <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        count = online > 0 ? (int)online : 1;
    }
    return count;
}

/* ---- sockets: thin wrappers, as HotSpot's on Linux ---- */

JNIEXPORT jint JNICALL JVM_InitializeSocketLibrary(void) { return 0; }

JNIEXPORT jint JNICALL JVM_Socket(jint domain, jint type, jint protocol) { return socket(domain, type, protocol); }

JNIEXPORT jint JNICALL JVM_SocketClose(jint fd) { return close(fd); }

JNIEXPORT jint JNICALL JVM_SocketShutdown(jint fd, jint howto) { return shutdown(fd, howto); }

JNIEXPORT jint JNICALL JVM_Send(jint fd, char *buf, jint nbytes, jint flags) {
    return (jint)RETRY_ON_EINTR(send(fd, buf, (size_t)nbytes, flags));
}

JNIEXPORT jint JNICALL JVM_SocketAvailable(jint fd, jint *result) {
    int pending = 0;
    if (ioctl(fd, FIONREAD, &pending) < 0) {
        return 0;
    }
    *result = pending;
    return 1;
}

JNIEXPORT jint JNICALL JVM_Listen(jint fd, jint count) { return listen(fd, count); }

JNIEXPORT jint JNICALL JVM_Connect(jint fd, struct sockaddr *addr, jint len) {
    return RETRY_ON_EINTR(connect(fd, addr, (socklen_t)len));
}

JNIEXPORT jint JNICALL JVM_GetSockName(jint fd, struct sockaddr *addr, int *len) {
    socklen_t length = (socklen_t)*len;
    int rc = getsockname(fd, addr, &length);
    *len = (int)length;
    return rc;
}

JNIEXPORT jint JNICALL JVM_GetSockOpt(jint fd, int level, int optname, char *optval, int *optlen) {
    socklen_t length = (socklen_t)*optlen;
    int rc = getsockopt(fd, level, optname, optval, &length);
    *optlen = (int)length;
    return rc;
}

JNIEXPORT jint JNICALL JVM_SetSockOpt(jint fd, int level, int optname, const char *optval, int optlen) {
    return setsockopt(fd, level, optname, optval, (socklen_t)optlen);
}

JNIEXPORT int JNICALL JVM_GetHostName(char *name, int namelen) { return gethostname(name, (size_t)namelen); }

/*
 * The JDK looks some libc functions up at run time (libnet checks for inet_pton to decide on IPv6). dlsym works in a
 * dynamically linked executable; the direct answer for inet_pton also covers a static one.
 */
JNIEXPORT void *JNICALL JVM_FindLibraryEntry(void *handle, const char *name) {
    if (name != NULL && strcmp(name, "inet_pton") == 0) {
        return (void *)&inet_pton;
    }
    return dlsym(handle, name);
}

/* ---- time ---- */

static jlong clock_nanos(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (jlong)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

JNIEXPORT jlong JNICALL JVM_CurrentTimeMillis(JNIEnv *env, jclass ignored) {
    (void)env, (void)ignored;
    return clock_nanos(CLOCK_REALTIME) / 1000000LL;
}

JNIEXPORT jlong JNICALL JVM_NanoTime(JNIEnv *env, jclass ignored) {
    (void)env, (void)ignored;
    return clock_nanos(CLOCK_MONOTONIC);
}

/*
 * Nanoseconds of the wall clock past offset_secs (the contract of jdk.internal.misc.VM.getNanoTimeAdjustment), or -1
 * when the answer does not fit in a long.
 */
JNIEXPORT jlong JNICALL JVM_GetNanoTimeAdjustment(JNIEnv *env, jclass ignored, jlong offset_secs) {
    (void)env, (void)ignored;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    jlong seconds = (jlong)ts.tv_sec - offset_secs;
    const jlong max_seconds = 0x0FFFFFFFFLL; /* about 136 years: well inside a long in nanoseconds */
    if (seconds > max_seconds || seconds < -max_seconds) {
        return -1;
    }
    return seconds * 1000000000LL + ts.tv_nsec;
}

/* The natives of System and VM that SubstrateVM leaves to the JDK's library, answered here (HotSpot's intrinsics). */
JNIEXPORT jlong JNICALL Java_java_lang_System_currentTimeMillis(JNIEnv *env, jclass cls) {
    return JVM_CurrentTimeMillis(env, cls);
}

JNIEXPORT jlong JNICALL Java_java_lang_System_nanoTime(JNIEnv *env, jclass cls) { return JVM_NanoTime(env, cls); }

JNIEXPORT jlong JNICALL Java_jdk_internal_misc_VM_getNanoTimeAdjustment(JNIEnv *env, jclass cls, jlong offset) {
    return JVM_GetNanoTimeAdjustment(env, cls, offset);
}

/* ---- process ---- */

JNIEXPORT void JNICALL JVM_BeforeHalt(void) {}

JNIEXPORT void JNICALL JVM_Halt(jint code) { exit(code); }

/* The JDK's static libraries are linked into this executable. */
JNIEXPORT jboolean JNICALL JVM_IsStaticallyLinked(void) { return JNI_TRUE; }

/* The message for errno, as the JDK's error paths expect: its length, 0 when there is none. */
JNIEXPORT jint JNICALL JVM_GetLastErrorString(char *buf, int len) {
    if (errno == 0 || len <= 0) {
        return 0;
    }
    const char *message = strerror(errno);
    size_t n = strlen(message);
    if (n >= (size_t)len) {
        n = (size_t)len - 1;
    }
    memcpy(buf, message, n);
    buf[n] = '\0';
    return (jint)n;
}

JNIEXPORT jstring JNICALL JVM_GetTemporaryDirectory(JNIEnv *env) {
    const char *dir = getenv("TMPDIR");
    return (*env)->NewStringUTF(env, dir != NULL && dir[0] != '\0' ? dir : "/tmp");
}

/* No security manager: a privileged action is simply run (the JDK 17+ meaning of doPrivileged). */
JNIEXPORT jobject JNICALL JVM_DoPrivileged(JNIEnv *env, jclass cls, jobject action, jobject context,
                                           jboolean wrap_exception) {
    (void)cls, (void)context, (void)wrap_exception;
    if (action == NULL) {
        jclass npe = (*env)->FindClass(env, "java/lang/NullPointerException");
        if (npe != NULL) {
            (*env)->ThrowNew(env, npe, "action");
        }
        return NULL;
    }
    jclass type = (*env)->GetObjectClass(env, action);
    jmethodID run = (*env)->GetMethodID(env, type, "run", "()Ljava/lang/Object;");
    return run == NULL ? NULL : (*env)->CallObjectMethod(env, action, run);
}

/* ---- class names (libjava's Class.c and ClassLoader.c check them before handing them to the VM) ---- */

/* Turns a binary name into an internal one ('.' to '/'); true when it had a '/' already (not a binary name). */
JNIEXPORT jboolean VerifyFixClassname(char *name) {
    jboolean had_slash = JNI_FALSE;
    for (char *p = name; *p != '\0'; p++) {
        if (*p == '/') {
            had_slash = JNI_TRUE;
        } else if (*p == '.') {
            *p = '/';
        }
    }
    return had_slash;
}

/* A loose check of an internal class name: no empty segments and none of the characters the JVM spec forbids. */
JNIEXPORT jboolean VerifyClassname(char *name, jboolean array_allowed) {
    const char *p = name;
    if (*p == '[') {
        if (!array_allowed) {
            return JNI_FALSE;
        }
        while (*p == '[') {
            p++;
        }
        if (*p != 'L') {
            return p[0] != '\0' && p[1] == '\0' && strchr("BCDFIJSZ", p[0]) != NULL;
        }
        p++;
        size_t n = strlen(p);
        if (n < 2 || p[n - 1] != ';') {
            return JNI_FALSE;
        }
    }
    int segment = 0;
    for (; *p != '\0' && *p != ';'; p++) {
        if (*p == '/') {
            if (segment == 0) {
                return JNI_FALSE;
            }
            segment = 0;
        } else if (*p == '.' || *p == '[') {
            return JNI_FALSE;
        } else {
            segment++;
        }
    }
    return segment > 0;
}

/* ---- jio_*: HotSpot's printf family, used by the JDK's C code for messages ---- */

JNIEXPORT int jio_vsnprintf(char *str, size_t count, const char *fmt, va_list args) {
    if ((intptr_t)count <= 0) {
        return -1;
    }
    int n = vsnprintf(str, count, fmt, args);
    return n >= 0 && (size_t)n < count ? n : -1; /* -1 when truncated, as HotSpot's */
}

JNIEXPORT int jio_snprintf(char *str, size_t count, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int n = jio_vsnprintf(str, count, fmt, args);
    va_end(args);
    return n;
}

JNIEXPORT int jio_vfprintf(FILE *f, const char *fmt, va_list args) { return vfprintf(f, fmt, args); }

JNIEXPORT int jio_fprintf(FILE *f, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int n = vfprintf(f, fmt, args);
    va_end(args);
    return n;
}

/* ---- libzip's locks around its cache of open zip files: recursive mutexes, as HotSpot's raw monitors ---- */

JNIEXPORT void *JNICALL JVM_RawMonitorCreate(void) {
    pthread_mutex_t *monitor = malloc(sizeof(pthread_mutex_t));
    pthread_mutexattr_t attributes;
    if (monitor == NULL || pthread_mutexattr_init(&attributes) != 0) {
        free(monitor);
        return NULL;
    }
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    int rc = pthread_mutex_init(monitor, &attributes);
    pthread_mutexattr_destroy(&attributes);
    if (rc != 0) {
        free(monitor);
        return NULL;
    }
    return monitor;
}

JNIEXPORT void JNICALL JVM_RawMonitorDestroy(void *monitor) {
    if (monitor != NULL) {
        pthread_mutex_destroy(monitor);
        free(monitor);
    }
}

JNIEXPORT jint JNICALL JVM_RawMonitorEnter(void *monitor) { return pthread_mutex_lock(monitor) == 0 ? 0 : -1; }

JNIEXPORT void JNICALL JVM_RawMonitorExit(void *monitor) { pthread_mutex_unlock(monitor); }

/* A path in the platform's form: on Linux, as it is. */
JNIEXPORT char *JNICALL JVM_NativePath(char *path) { return path; }

/*
 * HotSpot's management interface (jmm) does not exist here. SubstrateVM links libmanagement_ext without running its
 * JNI_OnLoad, the one caller; NULL is what that code treats as "not supported".
 */
JNIEXPORT void *JNICALL JVM_GetManagement(jint version) {
    (void)version;
    return NULL;
}

/* ---- SCTP is not part of this executable; its class initializer must still link ---- */

JNIEXPORT void JNICALL Java_sun_nio_ch_sctp_SctpChannelImpl_initIDs(JNIEnv *env, jclass cls) { (void)env, (void)cls; }

/* ---- referenced by the JDK's C code on paths SubstrateVM replaces: fail loudly if ever reached ---- */

#define UNSUPPORTED(name)                                                                                              \
    JNIEXPORT void name(void) { jvm_unsupported(#name); }

UNSUPPORTED(JVM_ArrayCopy)
