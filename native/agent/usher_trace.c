/*
 * usher-trace: a JVMTI agent that records, while Usher's test suite runs on the JVM, what a native image of Usher
 * must be told ahead of time: the classes, methods and fields reached by reflection, method handles and JNI, and the
 * resources read from the class path. GraalVM's own tracing agent (native-image-agent) is in no package registry,
 * so Usher has this one. native/trace.sh runs the tests with it and turns the records into
 * src/main/resources/META-INF/native-image/dev.usher/usher/reachability-metadata.json (native/trace-merge.py).
 *
 *   java -agentpath:libusher_trace.so=FILE ...   appends one tab-separated record per line to FILE.PID
 *
 * What is recorded, and how:
 *   - JNI: FindClass, Get[Static]MethodID and Get[Static]FieldID, through a replaced JNI function table, when the
 *     caller is a library outside the JDK (dladdr of the return address): the JDK's own libraries are SubstrateVM's
 *     business.
 *   - reflection, method handles and resources: a breakpoint at the start of each JDK method listed in TRACED below;
 *     its arguments are read from the frame. The caller's class is recorded too, so that the merge step can drop
 *     what test code and test frameworks did.
 * Every record is written once per process (a hash set of the lines written).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jvmti.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jvmtiEnv *jvmti;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct JNINativeInterface_ *jni; /* the JVM's own JNI functions, for our calls and the wrappers' */
static char jdk_home[PATH_MAX];

/* ---- the records written so far: an open-addressing set of line hashes ---- */

#define SEEN_SLOTS (1u << 20)
static uint64_t *seen;

static uint64_t hash_line(const char *s) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s != '\0'; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return h == 0 ? 1 : h;
}

/* Writes LINE unless it was written before. Called with out_lock held. */
static void write_once(const char *line) {
    uint64_t h = hash_line(line);
    for (uint32_t i = (uint32_t)h & (SEEN_SLOTS - 1), probes = 0; probes < SEEN_SLOTS;
         i = (i + 1) & (SEEN_SLOTS - 1), probes++) {
        if (seen[i] == h) {
            return;
        }
        if (seen[i] == 0) {
            seen[i] = h;
            fputs(line, out);
            fputc('\n', out);
            return;
        }
    }
}

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...) {
    char line[4096];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, args);
    va_end(args);
    if (n <= 0 || (size_t)n >= sizeof(line) || out == NULL) {
        return;
    }
    pthread_mutex_lock(&out_lock);
    write_once(line);
    pthread_mutex_unlock(&out_lock);
}

/* ---- names ---- */

/* A JVM type signature ("Lfoo/Bar;", "[I") as a Java name ("foo.Bar", "int[]") into BUF. */
static void java_name(const char *sig, char *buf, size_t size) {
    int dims = 0;
    while (*sig == '[') {
        dims++, sig++;
    }
    const char *base = NULL;
    switch (*sig) {
        case 'Z': base = "boolean"; break;
        case 'B': base = "byte"; break;
        case 'C': base = "char"; break;
        case 'S': base = "short"; break;
        case 'I': base = "int"; break;
        case 'J': base = "long"; break;
        case 'F': base = "float"; break;
        case 'D': base = "double"; break;
        case 'V': base = "void"; break;
        default: break;
    }
    size_t n = 0;
    if (base != NULL) {
        n = (size_t)snprintf(buf, size, "%s", base);
    } else if (*sig == 'L') {
        for (sig++; *sig != '\0' && *sig != ';' && n + 1 < size; sig++) {
            buf[n++] = *sig == '/' ? '.' : *sig;
        }
        buf[n] = '\0';
    } else { /* already a binary name */
        for (; *sig != '\0' && n + 1 < size; sig++) {
            buf[n++] = *sig == '/' ? '.' : *sig;
        }
        buf[n] = '\0';
    }
    while (dims-- > 0 && n + 2 < size) {
        buf[n++] = '[', buf[n++] = ']', buf[n] = '\0';
    }
}

static int class_name(jclass cls, char *buf, size_t size) {
    char *sig = NULL;
    if (cls == NULL || (*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE) {
        return 0;
    }
    java_name(sig, buf, size);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    return 1;
}

static int string_value(JNIEnv *env, jstring s, char *buf, size_t size) {
    if (s == NULL) {
        return 0;
    }
    const char *chars = jni->GetStringUTFChars(env, s, NULL);
    if (chars == NULL) {
        jni->ExceptionClear(env);
        return 0;
    }
    snprintf(buf, size, "%s", chars);
    jni->ReleaseStringUTFChars(env, s, chars);
    return 1;
}

/* The Java names of the classes in a Class[] (null: no parameters), comma-separated. */
static void class_list(JNIEnv *env, jobjectArray classes, char *buf, size_t size) {
    buf[0] = '\0';
    if (classes == NULL) {
        return;
    }
    jsize count = jni->GetArrayLength(env, classes);
    size_t n = 0;
    for (jsize i = 0; i < count && n + 1 < size; i++) {
        jclass c = (jclass)jni->GetObjectArrayElement(env, classes, i);
        char name[512] = "?";
        class_name(c, name, sizeof(name));
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i == 0 ? "" : ",", name);
        if (c != NULL) {
            jni->DeleteLocalRef(env, c);
        }
    }
}

/* The parameter types of a java.lang.invoke.MethodType, from its parameterArray(). */
static void method_type_parameters(JNIEnv *env, jobject type, char *buf, size_t size) {
    buf[0] = '\0';
    if (type == NULL) {
        return;
    }
    jclass cls = jni->GetObjectClass(env, type);
    jmethodID parameter_array = jni->GetMethodID(env, cls, "parameterArray", "()[Ljava/lang/Class;");
    jni->DeleteLocalRef(env, cls);
    if (parameter_array == NULL) {
        jni->ExceptionClear(env);
        return;
    }
    jobjectArray classes = (jobjectArray)jni->CallObjectMethod(env, type, parameter_array);
    if (classes == NULL) {
        jni->ExceptionClear(env);
        return;
    }
    class_list(env, classes, buf, size);
    jni->DeleteLocalRef(env, classes);
}

/* ---- JNI ---- */

/* True when the code at ADDRESS is not the JDK's own (its libraries live under java.home). */
static int outside_jdk(void *address) {
    Dl_info info;
    if (dladdr(address, &info) == 0 || info.dli_fname == NULL) {
        return 1;
    }
    return strncmp(info.dli_fname, jdk_home, strlen(jdk_home)) != 0;
}

static jclass JNICALL traced_FindClass(JNIEnv *env, const char *name) {
    jclass result = jni->FindClass(env, name);
    if (result != NULL && outside_jdk(__builtin_return_address(0))) {
        char java[512];
        java_name(name, java, sizeof(java));
        record("jni-class\t%s", java);
    }
    return result;
}

static void record_jni_member(const char *kind, jclass cls, const char *name, const char *sig) {
    char type[512];
    if (class_name(cls, type, sizeof(type))) {
        record("%s\t%s\t%s\t%s", kind, type, name, sig == NULL ? "" : sig);
    }
}

/* A method or field is registered on the class that declares it, which may be a superclass of the one asked. */
static void record_jni_method(jclass asked, jmethodID method, const char *name, const char *sig) {
    jclass declaring = NULL;
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &declaring) != JVMTI_ERROR_NONE) {
        declaring = asked;
    }
    record_jni_member("jni-method", declaring, name, sig);
}

static void record_jni_field(jclass asked, jfieldID field, const char *name, const char *sig) {
    jclass declaring = NULL;
    if ((*jvmti)->GetFieldDeclaringClass(jvmti, asked, field, &declaring) != JVMTI_ERROR_NONE) {
        declaring = asked;
    }
    record_jni_member("jni-field", declaring, name, sig);
}

static jmethodID JNICALL traced_GetMethodID(JNIEnv *env, jclass cls, const char *name, const char *sig) {
    jmethodID result = jni->GetMethodID(env, cls, name, sig);
    if (result != NULL && outside_jdk(__builtin_return_address(0))) {
        record_jni_method(cls, result, name, sig);
    }
    return result;
}

static jmethodID JNICALL traced_GetStaticMethodID(JNIEnv *env, jclass cls, const char *name, const char *sig) {
    jmethodID result = jni->GetStaticMethodID(env, cls, name, sig);
    if (result != NULL && outside_jdk(__builtin_return_address(0))) {
        record_jni_method(cls, result, name, sig);
    }
    return result;
}

static jfieldID JNICALL traced_GetFieldID(JNIEnv *env, jclass cls, const char *name, const char *sig) {
    jfieldID result = jni->GetFieldID(env, cls, name, sig);
    if (result != NULL && outside_jdk(__builtin_return_address(0))) {
        record_jni_field(cls, result, name, sig);
    }
    return result;
}

static jfieldID JNICALL traced_GetStaticFieldID(JNIEnv *env, jclass cls, const char *name, const char *sig) {
    jfieldID result = jni->GetStaticFieldID(env, cls, name, sig);
    if (result != NULL && outside_jdk(__builtin_return_address(0))) {
        record_jni_field(cls, result, name, sig);
    }
    return result;
}

/* RegisterNatives: the class's native methods must be known to the image as JNI-accessible. */
static jint JNICALL traced_RegisterNatives(JNIEnv *env, jclass cls, const JNINativeMethod *methods, jint count) {
    jint result = jni->RegisterNatives(env, cls, methods, count);
    if (result == 0 && outside_jdk(__builtin_return_address(0))) {
        for (jint i = 0; i < count; i++) {
            record_jni_member("jni-method", cls, methods[i].name, methods[i].signature);
        }
    }
    return result;
}

static void install_jni_wrappers(void) {
    struct JNINativeInterface_ *table = NULL;
    if ((*jvmti)->GetJNIFunctionTable(jvmti, (jniNativeInterface **)&table) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "usher-trace: GetJNIFunctionTable failed; JNI is not traced\n");
        return;
    }
    struct JNINativeInterface_ *original = malloc(sizeof(*original));
    if (original == NULL) {
        return;
    }
    memcpy(original, table, sizeof(*original));
    jni = original;
    table->FindClass = traced_FindClass;
    table->GetMethodID = traced_GetMethodID;
    table->GetStaticMethodID = traced_GetStaticMethodID;
    table->GetFieldID = traced_GetFieldID;
    table->GetStaticFieldID = traced_GetStaticFieldID;
    table->RegisterNatives = traced_RegisterNatives;
    (*jvmti)->SetJNIFunctionTable(jvmti, table);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
}

/* ---- reflection, method handles, resources: breakpoints on the JDK's entry points ---- */

enum action {
    CLASS_BY_NAME,     /* static, arg 0 a class name */
    LOADER_CLASS,      /* ClassLoader.loadClass(String): arg 1 */
    MEMBERS,           /* Class.getXxxs(): this; the kind is recorded */
    METHOD,            /* Class.get[Declared]Method(String, Class...) */
    CONSTRUCTOR,       /* Class.get[Declared]Constructor(Class...) */
    NEW_INSTANCE,      /* Class.newInstance(): the no-argument constructor */
    FIELD,             /* Class.get[Declared]Field(String) */
    HANDLE_METHOD,     /* Lookup.findVirtual/findStatic(Class, String, MethodType) */
    HANDLE_FIELD,      /* Lookup.findGetter/findVarHandle... (Class, String, Class) */
    HANDLE_CONSTRUCTOR,/* Lookup.findConstructor(Class, MethodType) */
    RESOURCE,          /* ClassLoader.getResource...(String) and BuiltinClassLoader.findResource...(String) */
};

struct traced {
    const char *cls, *name, *sig;
    int is_static;
    enum action action;
    const char *kind; /* for MEMBERS and the record's name */
    jmethodID method;
};

static struct traced TRACED[] = {
    {"java/lang/Class", "forName", "(Ljava/lang/String;)Ljava/lang/Class;", 1, CLASS_BY_NAME, "class", NULL},
    {"java/lang/Class", "forName", "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;", 1, CLASS_BY_NAME,
     "class", NULL},
    {"java/lang/ClassLoader", "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;", 0, LOADER_CLASS, "class", NULL},
    {"java/lang/Class", "getMethods", "()[Ljava/lang/reflect/Method;", 0, MEMBERS, "allPublicMethods", NULL},
    {"java/lang/Class", "getDeclaredMethods", "()[Ljava/lang/reflect/Method;", 0, MEMBERS, "allDeclaredMethods", NULL},
    {"java/lang/Class", "getConstructors", "()[Ljava/lang/reflect/Constructor;", 0, MEMBERS, "allPublicConstructors",
     NULL},
    {"java/lang/Class", "getDeclaredConstructors", "()[Ljava/lang/reflect/Constructor;", 0, MEMBERS,
     "allDeclaredConstructors", NULL},
    {"java/lang/Class", "getFields", "()[Ljava/lang/reflect/Field;", 0, MEMBERS, "allPublicFields", NULL},
    {"java/lang/Class", "getDeclaredFields", "()[Ljava/lang/reflect/Field;", 0, MEMBERS, "allDeclaredFields", NULL},
    {"java/lang/Class", "getMethod", "(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;", 0, METHOD,
     "method", NULL},
    {"java/lang/Class", "getDeclaredMethod", "(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;", 0,
     METHOD, "method", NULL},
    {"java/lang/Class", "getConstructor", "([Ljava/lang/Class;)Ljava/lang/reflect/Constructor;", 0, CONSTRUCTOR,
     "method", NULL},
    {"java/lang/Class", "getDeclaredConstructor", "([Ljava/lang/Class;)Ljava/lang/reflect/Constructor;", 0,
     CONSTRUCTOR, "method", NULL},
    {"java/lang/Class", "newInstance", "()Ljava/lang/Object;", 0, NEW_INSTANCE, "method", NULL},
    {"java/lang/Class", "getField", "(Ljava/lang/String;)Ljava/lang/reflect/Field;", 0, FIELD, "field", NULL},
    {"java/lang/Class", "getDeclaredField", "(Ljava/lang/String;)Ljava/lang/reflect/Field;", 0, FIELD, "field", NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findVirtual",
     "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/MethodHandle;", 0,
     HANDLE_METHOD, "method", NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findStatic",
     "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/MethodHandle;", 0,
     HANDLE_METHOD, "method", NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findConstructor",
     "(Ljava/lang/Class;Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/MethodHandle;", 0, HANDLE_CONSTRUCTOR,
     "method", NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findGetter",
     "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/MethodHandle;", 0, HANDLE_FIELD, "field",
     NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findStaticGetter",
     "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/MethodHandle;", 0, HANDLE_FIELD, "field",
     NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findVarHandle",
     "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/VarHandle;", 0, HANDLE_FIELD, "field",
     NULL},
    {"java/lang/invoke/MethodHandles$Lookup", "findStaticVarHandle",
     "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/VarHandle;", 0, HANDLE_FIELD, "field",
     NULL},
    {"java/lang/ClassLoader", "getResource", "(Ljava/lang/String;)Ljava/net/URL;", 0, RESOURCE, "resource", NULL},
    {"java/lang/ClassLoader", "getResources", "(Ljava/lang/String;)Ljava/util/Enumeration;", 0, RESOURCE, "resource",
     NULL},
    {"java/lang/ClassLoader", "getResourceAsStream", "(Ljava/lang/String;)Ljava/io/InputStream;", 0, RESOURCE,
     "resource", NULL},
    {"jdk/internal/loader/BuiltinClassLoader", "findResource", "(Ljava/lang/String;)Ljava/net/URL;", 0, RESOURCE,
     "resource", NULL},
    {"jdk/internal/loader/BuiltinClassLoader", "findResources", "(Ljava/lang/String;)Ljava/util/Enumeration;", 0,
     RESOURCE, "resource", NULL},
};
#define TRACED_COUNT (sizeof(TRACED) / sizeof(TRACED[0]))

static jobject local(jthread thread, jint slot) {
    jobject value = NULL;
    if ((*jvmti)->GetLocalObject(jvmti, thread, 0, slot, &value) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    return value;
}

/*
 * True when frame 1 is at an invoke instruction: the traced method was called by the code there. When the JVM
 * resolves a class (new, getstatic, checkcast...) it calls ClassLoader.loadClass itself, from that same frame.
 */
static int called_by_invoke(jthread thread) {
    jmethodID method;
    jlocation location;
    jint count;
    unsigned char *bytecodes;
    if ((*jvmti)->GetFrameLocation(jvmti, thread, 1, &method, &location) != JVMTI_ERROR_NONE || location < 0 ||
        (*jvmti)->GetBytecodes(jvmti, method, &count, &bytecodes) != JVMTI_ERROR_NONE) {
        return 1; /* unknown (a native frame): keep the record */
    }
    int invoke = 0;
    if (location < count) {
        unsigned char op = bytecodes[location];
        invoke = op >= 0xb6 && op <= 0xba; /* invokevirtual, invokespecial, invokestatic, invokeinterface, invokedynamic */
    }
    (*jvmti)->Deallocate(jvmti, bytecodes);
    return invoke;
}

/*
 * getMethod and getField find public members that a superclass declares too; which class declares it is not known
 * at the call, so the member is recorded for the class and each of its superclasses (the builder ignores the names
 * a class does not declare).
 */
static void record_up_the_hierarchy(JNIEnv *env, const char *kind, const char *caller, jclass cls, const char *name,
                                    const char *params) {
    jclass current = cls;
    for (int depth = 0; current != NULL && depth < 16; depth++) {
        char type[512];
        if (!class_name(current, type, sizeof(type)) || strcmp(type, "java.lang.Object") == 0) {
            break;
        }
        if (params != NULL) {
            record("%s\t%s\t%s\t%s\t%s", kind, caller, type, name, params);
        } else {
            record("%s\t%s\t%s\t%s", kind, caller, type, name);
        }
        jclass super = jni->GetSuperclass(env, current);
        if (current != cls) {
            jni->DeleteLocalRef(env, current);
        }
        current = super;
    }
    if (current != NULL && current != cls) {
        jni->DeleteLocalRef(env, current);
    }
}

/* The Java name of the class whose method called the traced one (frame 1). */
static void caller_name(jthread thread, char *buf, size_t size) {
    jmethodID method;
    jlocation location;
    jclass cls;
    snprintf(buf, size, "?");
    if ((*jvmti)->GetFrameLocation(jvmti, thread, 1, &method, &location) == JVMTI_ERROR_NONE &&
        (*jvmti)->GetMethodDeclaringClass(jvmti, method, &cls) == JVMTI_ERROR_NONE) {
        class_name(cls, buf, size);
    }
}

static void JNICALL on_breakpoint(jvmtiEnv *env_, JNIEnv *env, jthread thread, jmethodID method, jlocation location) {
    struct traced *t = NULL;
    for (size_t i = 0; i < TRACED_COUNT; i++) {
        if (TRACED[i].method == method) {
            t = &TRACED[i];
            break;
        }
    }
    if (t == NULL) {
        return;
    }
    char caller[512], target[512], name[1024], params[2048];
    caller_name(thread, caller, sizeof(caller));
    jobject a0 = local(thread, 0), a1 = local(thread, 1), a2 = local(thread, 2), a3 = local(thread, 3);
    switch (t->action) {
        case CLASS_BY_NAME:
            if (string_value(env, a0, name, sizeof(name))) {
                record("class\t%s\t%s", caller, name);
            }
            break;
        case LOADER_CLASS:
            /* the JVM resolving a class calls loadClass too: only a call written in the caller's code counts */
            if (called_by_invoke(thread) && string_value(env, a1, name, sizeof(name))) {
                record("class\t%s\t%s", caller, name);
            }
            break;
        case MEMBERS:
            if (class_name(a0, target, sizeof(target))) {
                record("members\t%s\t%s\t%s", caller, target, t->kind);
            }
            break;
        case METHOD:
            if (class_name(a0, target, sizeof(target)) && string_value(env, a1, name, sizeof(name))) {
                class_list(env, a2, params, sizeof(params));
                record_up_the_hierarchy(env, "method", caller, (jclass)a0, name, params);
            }
            break;
        case CONSTRUCTOR:
            if (class_name(a0, target, sizeof(target))) {
                class_list(env, a1, params, sizeof(params));
                record("method\t%s\t%s\t<init>\t%s", caller, target, params);
            }
            break;
        case NEW_INSTANCE:
            if (class_name(a0, target, sizeof(target))) {
                record("method\t%s\t%s\t<init>\t", caller, target);
            }
            break;
        case FIELD:
            if (class_name(a0, target, sizeof(target)) && string_value(env, a1, name, sizeof(name))) {
                record_up_the_hierarchy(env, "field", caller, (jclass)a0, name, NULL);
            }
            break;
        case HANDLE_METHOD:
            if (class_name(a1, target, sizeof(target)) && string_value(env, a2, name, sizeof(name))) {
                method_type_parameters(env, a3, params, sizeof(params));
                record("method\t%s\t%s\t%s\t%s", caller, target, name, params);
            }
            break;
        case HANDLE_CONSTRUCTOR:
            if (class_name(a1, target, sizeof(target))) {
                method_type_parameters(env, a2, params, sizeof(params));
                record("method\t%s\t%s\t<init>\t%s", caller, target, params);
            }
            break;
        case HANDLE_FIELD:
            if (class_name(a1, target, sizeof(target)) && string_value(env, a2, name, sizeof(name))) {
                record("field\t%s\t%s\t%s", caller, target, name);
            }
            break;
        case RESOURCE:
            if (string_value(env, a1, name, sizeof(name))) {
                record("resource\t%s\t%s", caller, name[0] == '/' ? name + 1 : name);
            }
            break;
    }
    jobject locals[] = {a0, a1, a2, a3};
    for (size_t i = 0; i < 4; i++) {
        if (locals[i] != NULL) {
            jni->DeleteLocalRef(env, locals[i]);
        }
    }
}

static void set_breakpoints(JNIEnv *env) {
    for (size_t i = 0; i < TRACED_COUNT; i++) {
        struct traced *t = &TRACED[i];
        jclass cls = jni->FindClass(env, t->cls);
        if (cls == NULL) {
            jni->ExceptionClear(env);
            fprintf(stderr, "usher-trace: no class %s; not traced\n", t->cls);
            continue;
        }
        t->method = t->is_static ? jni->GetStaticMethodID(env, cls, t->name, t->sig)
                                 : jni->GetMethodID(env, cls, t->name, t->sig);
        if (t->method == NULL) {
            jni->ExceptionClear(env);
            fprintf(stderr, "usher-trace: no method %s.%s%s; not traced\n", t->cls, t->name, t->sig);
            continue;
        }
        if ((*jvmti)->SetBreakpoint(jvmti, t->method, 0) != JVMTI_ERROR_NONE) {
            fprintf(stderr, "usher-trace: cannot set a breakpoint in %s.%s\n", t->cls, t->name);
        }
    }
}

static void JNICALL on_vm_init(jvmtiEnv *env_, JNIEnv *env, jthread thread) {
    install_jni_wrappers(); /* the JNI function table can be replaced from the live phase on */
    set_breakpoints(env);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_BREAKPOINT, NULL);
}

static void JNICALL on_vm_death(jvmtiEnv *env_, JNIEnv *env) {
    pthread_mutex_lock(&out_lock);
    if (out != NULL) {
        fflush(out);
    }
    pthread_mutex_unlock(&out_lock);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    if (options == NULL || options[0] == '\0') {
        fprintf(stderr, "usher-trace: usage: -agentpath:libusher_trace.so=OUTPUT_FILE_PREFIX\n");
        return JNI_ERR;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s.%ld", options, (long)getpid());
    out = fopen(path, "a");
    seen = calloc(SEEN_SLOTS, sizeof(uint64_t));
    if (out == NULL || seen == NULL) {
        fprintf(stderr, "usher-trace: cannot write %s\n", path);
        return JNI_ERR;
    }
    /* a line at a time: tests SIGKILL processes, and a full stdio buffer would be lost with them (records are
       written once each, so this is a few thousand writes per JVM) */
    setvbuf(out, NULL, _IOLBF, 0);
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        return JNI_ERR;
    }
    /* java.home: the directory above this JVM's lib/, found from a function of libjvm */
    Dl_info info;
    if (dladdr((void *)(*vm)->GetEnv, &info) != 0 && info.dli_fname != NULL) {
        snprintf(jdk_home, sizeof(jdk_home), "%s", info.dli_fname);
        char *lib = strstr(jdk_home, "/lib/server/");
        if (lib != NULL) {
            lib[1] = '\0'; /* keep the slash: "/usr/lib/jvm/temurin-25-jdk-amd64/" */
        }
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_breakpoint_events = 1;
    caps.can_access_local_variables = 1;
    caps.can_get_bytecodes = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "usher-trace: the JVM refused breakpoint capabilities\n");
        return JNI_ERR;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    callbacks.Breakpoint = on_breakpoint;
    (*jvmti)->SetEventCallbacks(jvmti, &callbacks, sizeof(callbacks));
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return JNI_OK;
}
