/*
 * The C half of java signal handling in SubstrateVM (CSunMiscSignal, used for sun.misc.Signal / jdk.internal.misc.Signal:
 * Usher's SIGHUP reload and SIGTERM shutdown). The C handler only counts the signal and wakes the dispatcher thread
 * through a semaphore (both async-signal-safe); the dispatcher thread takes the pending signals one at a time.
 * Written for Usher's native build.
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

static int owner; /* 1 while an isolate owns the mechanism */
static sem_t wakeup;
static int pending[NSIG];

int cSunMiscSignal_open(void) {
    int expected = 0;
    if (!__atomic_compare_exchange_n(&owner, &expected, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        return 1; /* another isolate has it */
    }
    for (int i = 0; i < NSIG; i++) {
        __atomic_store_n(&pending[i], 0, __ATOMIC_SEQ_CST);
    }
    if (sem_init(&wakeup, 0, 0) != 0) {
        __atomic_store_n(&owner, 0, __ATOMIC_SEQ_CST);
        return -1;
    }
    return 0;
}

int cSunMiscSignal_close(void) {
    int rc = sem_destroy(&wakeup);
    __atomic_store_n(&owner, 0, __ATOMIC_SEQ_CST);
    return rc == 0 ? 0 : errno;
}

/* Waits for a signal; an interruption counts as a (spurious) wake-up, which the caller tolerates. */
int cSunMiscSignal_awaitSemaphore(void) {
    if (sem_wait(&wakeup) != 0 && errno != EINTR) {
        return errno;
    }
    return 0;
}

int cSunMiscSignal_signalSemaphore(void) { return sem_post(&wakeup) == 0 ? 0 : errno; }

bool cSunMiscSignal_signalRangeCheck(int sig) { return sig > 0 && sig < NSIG; }

/* The lowest pending signal, taken off the count; -1 when none is pending. */
int cSunMiscSignal_checkPendingSignal(void) {
    for (int sig = 1; sig < NSIG; sig++) {
        int count = __atomic_load_n(&pending[sig], __ATOMIC_SEQ_CST);
        while (count > 0) {
            if (__atomic_compare_exchange_n(&pending[sig], &count, count - 1, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST)) {
                return sig;
            }
        }
    }
    return -1;
}

static void count_signal(int sig) {
    if (cSunMiscSignal_signalRangeCheck(sig)) {
        int saved_errno = errno;
        __atomic_add_fetch(&pending[sig], 1, __ATOMIC_SEQ_CST);
        sem_post(&wakeup);
        errno = saved_errno;
    }
}

void (*cSunMiscSignal_signalHandlerFunctionPointer(void))(int) { return count_signal; }
