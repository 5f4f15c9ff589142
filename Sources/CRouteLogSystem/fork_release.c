// The descriptors that hold a writer's locks, let go of in a child made with fork().
// A child inherits its parent's open file descriptions, and the store's locks belong
// to those (an flock on the directory, an OFD lock on LOCK): a child that kept them
// would keep the store locked after its parent died, whatever the child goes on doing.
// Right after the fork, in the child, each registered descriptor is pointed at
// /dev/null instead: the child's hold goes, the parent's stays, and the descriptor
// numbers stay in use, so the child's own later close of them closes nothing else.
//
// The fork guard. A descriptor is registered right after it is opened, before it takes
// its lock; a fork() by another thread between the open and the registration would
// still hand the child the description, which the parent then locks. So the open and
// the registration run as one guarded stretch (routelog_fork_guard_enter/leave), and
// fork() waits, in a pthread_atfork prepare handler, until no thread is inside one;
// meanwhile no thread enters one. Counters, not a mutex: the child's handler, which
// lets the guard go there, may only make async-signal-safe calls. A guarded stretch
// must never fork (fork() would wait for it); one that does anyway in the thread that
// is inside it (a signal handler, say) is not waited for, so it cannot deadlock. A
// stretch may allocate: glibc and Darwin's libSystem run these handlers before they
// take their own locks for the fork (malloc's among them), so the forking thread holds
// nothing a stretch waits for.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "CRouteLogSystem.h"

enum { lock_slots = 4096 };
// Each slot holds a descriptor + 1, or 0 when free. Atomics, not a mutex: the child's
// handler runs where a mutex another thread held at the fork would never be let go.
static _Atomic int slots[lock_slots];
static pthread_once_t handler_installed = PTHREAD_ONCE_INIT;
// Opened once, ahead: a child of a process whose descriptors ran out could open none.
static int null_fd = -1;

// Threads inside a guarded stretch (each counted once, however deep it nests), and
// forks under way (their prepare handler ran, their parent handler not yet).
static _Atomic int threads_inside;
static _Atomic int forks_under_way;
// How deep this thread is in guarded stretches.
static _Thread_local volatile int depth;

static void pause_briefly(void) {
    struct timespec pause = {0, 20000};
    nanosleep(&pause, NULL);
}

// Runs in the forking thread before the fork: announce it (no thread enters a stretch
// from now on), then wait for those inside to leave, all but this thread's own.
static void hold_forks_until_no_one_is_inside(void) {
    atomic_fetch_add(&forks_under_way, 1);
    int own = depth > 0;
    while (atomic_load(&threads_inside) > own) pause_briefly();
}

static void let_forks_go_in_parent(void) {
    atomic_fetch_sub(&forks_under_way, 1);
}

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
    // The child is this thread alone: the other threads' stretches and forks are not
    // in it. (`depth` was read in the prepare handler: no lazy allocation here.)
    atomic_store(&forks_under_way, 0);
    atomic_store(&threads_inside, depth > 0);
}

static void install_handler(void) {
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pthread_atfork(hold_forks_until_no_one_is_inside, let_forks_go_in_parent, release_in_child);
}

// A thread's count in threads_inside and its `depth` change together, with signals
// blocked: a signal handler that forks (the prepare handler reads `depth` to know
// whether the thread it runs in is counted) then finds the thread either counted with
// depth > 0, or neither. Were a signal let in between (depth back to 0, the count not
// yet taken away, say), the fork would wait for the very thread it interrupted, for
// ever; or, the other way round, not wait for another thread's stretch, and leave the
// child a count no thread of its own ever takes away.
static void block_signals(sigset_t *old) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

static void restore_signals(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

void routelog_fork_guard_enter(void) {
    pthread_once(&handler_installed, install_handler);
    if (depth > 0) {
        depth++;
        return;
    }
    while (1) {
        sigset_t old;
        block_signals(&old);
        atomic_fetch_add(&threads_inside, 1);
        // Both counters are sequentially consistent: either the fork's handler sees
        // this thread inside and waits, or this thread sees the fork and steps out.
        if (atomic_load(&forks_under_way) == 0) {
            depth = 1;
            restore_signals(&old);
            return;
        }
        atomic_fetch_sub(&threads_inside, 1);
        restore_signals(&old);
        // Waiting with signals let in, and neither counted nor deep.
        while (atomic_load(&forks_under_way) > 0) pause_briefly();
    }
}

void routelog_fork_guard_leave(void) {
    if (depth > 1) {
        depth--;
        return;
    }
    sigset_t old;
    block_signals(&old);
    atomic_fetch_sub(&threads_inside, 1);
    depth = 0;
    restore_signals(&old);
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
