/*
 * Fixed-argument forms of C functions that take variable arguments (open, openat, fprintf): SubstrateVM calls C
 * functions with a fixed signature, so it calls these, named after their argument types (S string, I int,
 * D the int printed with %d). Written for Usher's native build.
 */
#include <fcntl.h>
#include <stdio.h>

int openSII(const char *path, int flags, int mode) { return open(path, flags, mode); }

int openatISII(int dirfd, const char *path, int flags, int mode) { return openat(dirfd, path, flags, mode); }

int fprintfSD(FILE *stream, const char *format, char *text, int number) { return fprintf(stream, format, text, number); }
