// The descriptors that hold a writer's locks, let go of in a child made with fork().
// A child inherits its parent's open file descriptions, and the store's locks belong
// to those (an flock on the directory, an OFD lock on LOCK): a child that kept them
// would keep the store locked after its parent closed it, or died. Right after the fork,
// in the child, each registered descriptor is pointed at /dev/null instead: the child's
// hold goes, the parent's stays, and the descriptor numbers stay in use, so the child's
// own later close of them closes nothing else.
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include "CRouteLogSystem.h"

enum { lock_slots = 4096 };
// Each slot holds a descriptor + 1, or 0 when free. Atomics, not a mutex: the child's
// handler runs where a mutex another thread held at the fork would never be let go.
static _Atomic int slots[lock_slots];
static pthread_once_t handler_installed = PTHREAD_ONCE_INIT;
// Opened once, ahead: a child of a process whose descriptors ran out could open none.
static int null_fd = -1;

// Runs in the child, before fork() returns there: only async-signal-safe calls.
static void release_in_child(void) {
    for (int i = 0; i < lock_slots; i++) {
        int value = atomic_load(&slots[i]);
        if (value == 0) continue;
        if (null_fd >= 0 && dup2(null_fd, value - 1) >= 0) {
            (void)fcntl(value - 1, F_SETFD, FD_CLOEXEC);
        } else {
            // Without /dev/null: closing the child's copy drops its hold all the same
            // (the number may then be reused by the child).
            close(value - 1);
        }
        atomic_store(&slots[i], 0);
    }
}

static void install_handler(void) {
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pthread_atfork(NULL, NULL, release_in_child);
}

int routelog_release_in_forked_child(int fd) {
    pthread_once(&handler_installed, install_handler);
    for (int i = 0; i < lock_slots; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&slots[i], &expected, fd + 1)) return 0;
    }
    return -1;
}

void routelog_forget_for_forked_child(int fd) {
    for (int i = 0; i < lock_slots; i++) {
        int expected = fd + 1;
        if (atomic_compare_exchange_strong(&slots[i], &expected, 0)) return;
    }
}
