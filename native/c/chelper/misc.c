/*
 * Small C helpers SubstrateVM calls on Linux (LibCHelper, LinuxLibCHelper, CodeSynchronizationOperations).
 * Written for Usher's native build.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

char **getEnviron(void) { return environ; }

int getThreadId(void) { return (int)syscall(SYS_gettid); }

/*
 * User-mode CPU time of one of this process's threads in nanoseconds, from /proc (field 14 of its stat line, in
 * clock ticks), or -1 when it cannot be read.
 */
long long getThreadUserTimeSlow(int tid) {
    char path[64], line[1024];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        return -1;
    }
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = '\0';
    char *p = strrchr(line, ')'); /* the command name may hold spaces and parentheses */
    if (p == NULL) {
        return -1;
    }
    unsigned long long utime;
    /* after ") ": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu", &utime) != 1) {
        return -1;
    }
    long ticks = sysconf(_SC_CLK_TCK);
    if (ticks <= 0) {
        return -1;
    }
    return (long long)(utime * (1000000000ULL / (unsigned long long)ticks));
}

void *mremapP(void *old_address, size_t old_size, size_t new_size, int flags, void *new_address) {
    return mremap(old_address, old_size, new_size, flags, new_address);
}

void codeSynchronization_clearCache(long code_start, long code_size) {
    __builtin___clear_cache((char *)code_start, (char *)(code_start + code_size));
}

/* Windows' time zone mapping; Linux reads /etc/localtime in Java, so there is nothing to map here. */
char *SVM_FindJavaTZmd(const char *tz_mappings, int length) {
    (void)tz_mappings, (void)length;
    return NULL;
}
