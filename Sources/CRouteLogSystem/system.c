// Operating-system calls that Swift's Glibc module does not expose (GNU extensions)
// or that differ between Linux and Darwin.
#define _GNU_SOURCE
#include "CRouteLogSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/random.h>
#include <sys/syscall.h>
#endif
#if defined(__APPLE__)
#include <stdlib.h>
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void routelog_give_back_freed_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void routelog_prepare_for_writing(void *start, size_t length) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    // Kernels before 5.14 have no MADV_POPULATE_WRITE (EINVAL): asked once, then never.
    static int unsupported;
    if (length < ROUTELOG_PREPARE_FOR_WRITING_MINIMUM || __atomic_load_n(&unsupported, __ATOMIC_RELAXED)) return;
    static long page_size;
    long page = __atomic_load_n(&page_size, __ATOMIC_RELAXED);
    if (page == 0) {
        page = sysconf(_SC_PAGESIZE);
        if (page <= 0 || (page & (page - 1)) != 0) return;
        __atomic_store_n(&page_size, page, __ATOMIC_RELAXED);
    }
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t first = ((uintptr_t)start + mask) & ~mask, end = ((uintptr_t)start + length) & ~mask;
    // The pages whose whole span is in the buffer, 256 at a time: those not resident are
    // filled in runs, one call a run.
    enum { batch = 256 };
    unsigned char resident[batch];
    for (uintptr_t at = first; at < end;) {
        size_t pages = (end - at) / (uintptr_t)page < batch ? (end - at) / (uintptr_t)page : batch;
        if (mincore((void *)at, pages * (size_t)page, resident) != 0) return;
        for (size_t i = 0; i < pages;) {
            if (resident[i] & 1) {
                i++;
                continue;
            }
            size_t j = i;
            while (j < pages && !(resident[j] & 1)) j++;
            if (madvise((void *)(at + i * (uintptr_t)page), (j - i) * (size_t)page, MADV_POPULATE_WRITE) != 0) {
                if (errno == EINVAL) __atomic_store_n(&unsupported, 1, __ATOMIC_RELAXED);
                return;
            }
            i = j;
        }
        at += pages * (uintptr_t)page;
    }
#else
    (void)start, (void)length;
#endif
}

int routelog_random_bytes(void *buffer, size_t count) {
#if defined(__APPLE__)
    arc4random_buf(buffer, count);
    return 0;
#elif defined(__linux__)
    // getrandom gives up to 256 bytes whole once the pool is ready; a signal can cut a
    // larger request short.
    unsigned char *p = buffer;
    while (count > 0) {
        ssize_t n = getrandom(p, count, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += n, count -= (size_t)n;
    }
    return 0;
#else
    (void)buffer, (void)count;
    return ENOSYS;
#endif
}

int routelog_lock_exclusive(int fd) {
#if defined(F_OFD_SETLK)
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 0;
    while (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
        if (errno == EINTR) continue;
        return errno == EACCES ? EAGAIN : errno;
    }
    return 0;
#else
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    return 0;
#endif
}

int routelog_lock_directory(int fd) {
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    return 0;
}

int routelog_unlock_directory(int fd) {
    while (flock(fd, LOCK_UN) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    return 0;
}

int routelog_unlock(int fd) {
#if defined(F_OFD_SETLK)
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) != 0) return errno;
    return 0;
#else
    return flock(fd, LOCK_UN) == 0 ? 0 : errno;
#endif
}

int routelog_lock_is_held(int fd) {
#if defined(F_OFD_GETLK)
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 0;
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return -errno;
    return fl.l_type == F_UNLCK ? 0 : 1;
#else
    // flock has no query: probe with a shared lock and let it go at once.
    if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
        return errno == EWOULDBLOCK ? 1 : -errno;
    }
    flock(fd, LOCK_UN);
    return 0;
#endif
}

int routelog_sync_data(int fd) {
#if defined(__APPLE__)
    if (fcntl(fd, F_FULLFSYNC) == 0) return 0;
    // Some file systems (network, FAT) refuse F_FULLFSYNC; fsync is the best left.
    return fsync(fd) == 0 ? 0 : errno;
#else
    int r;
    do { r = fdatasync(fd); } while (r != 0 && errno == EINTR);
    return r == 0 ? 0 : errno;
#endif
}

int routelog_sync_all(int fd) {
#if defined(__APPLE__)
    if (fcntl(fd, F_FULLFSYNC) == 0) return 0;
    return fsync(fd) == 0 ? 0 : errno;
#else
    int r;
    do { r = fsync(fd); } while (r != 0 && errno == EINTR);
    return r == 0 ? 0 : errno;
#endif
}

int routelog_sync_barrier(int fd) {
    int r;
#if defined(F_BARRIERFSYNC)
    do { r = fcntl(fd, F_BARRIERFSYNC); } while (r != 0 && errno == EINTR);
    if (r == 0) return 0;
    // File systems without barriers (network, FAT, some external disks) refuse it.
    do { r = fsync(fd); } while (r != 0 && errno == EINTR);
#else
    do { r = fdatasync(fd); } while (r != 0 && errno == EINTR);
#endif
    return r == 0 ? 0 : errno;
}

int routelog_set_protection_class(int fd, int protection_class) {
#if defined(F_SETPROTECTIONCLASS)
    while (fcntl(fd, F_SETPROTECTIONCLASS, protection_class) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    return 0;
#else
    (void)fd;
    (void)protection_class;
    return ENOTSUP;
#endif
}

int routelog_get_protection_class(int fd) {
#if defined(F_GETPROTECTIONCLASS)
    int r = fcntl(fd, F_GETPROTECTIONCLASS);
    return r < 0 ? -errno : r;
#else
    (void)fd;
    return -ENOTSUP;
#endif
}

int routelog_rename_exclusive(const char *from, const char *to) {
    return routelog_renameat_exclusive(AT_FDCWD, from, AT_FDCWD, to);
}

int routelog_rename_exchange(const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
    // RENAME_EXCHANGE (2). EINVAL: this file system has no exchange; ENOSYS: the kernel
    // (before 3.15) has no renameat2.
    if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2) == 0) return 0;
    return errno == EINVAL || errno == ENOSYS ? ENOTSUP : errno;
#elif defined(__APPLE__) && defined(RENAME_SWAP)
    if (renamex_np(a, b, RENAME_SWAP) == 0) return 0;
    return errno == EINVAL ? ENOTSUP : errno;
#else
    (void)a;
    (void)b;
    return ENOTSUP;
#endif
}

int routelog_search_only_flag(void) {
#if defined(__linux__) && defined(O_PATH)
    return O_PATH;
#elif defined(O_SEARCH)
    // POSIX's flag for the same (Apple's SDKs and the BSDs define it).
    return O_SEARCH;
#else
    return 0;
#endif
}

// The birth time of `path` in `directory` (never through a link), or of `directory`
// itself when `path` is "" (the open file's).
static int birth_time_at(int directory, const char *path, int64_t *seconds, int64_t *nanoseconds) {
#if defined(__APPLE__)
    struct stat info;
    int failed = path[0] == 0 ? fstat(directory, &info) : fstatat(directory, path, &info, AT_SYMLINK_NOFOLLOW);
    if (failed != 0) return errno;
    *seconds = (int64_t)info.st_birthtimespec.tv_sec;
    *nanoseconds = (int64_t)info.st_birthtimespec.tv_nsec;
    return 0;
#elif defined(__linux__) && defined(STATX_BTIME)
    // Kernels before 4.11 have no statx: glibc then answers from fstat, without a birth time.
    struct statx info;
    int flags = path[0] == 0 ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW;
    if (statx(directory, path, flags, STATX_BTIME, &info) != 0) return errno;
    if (!(info.stx_mask & STATX_BTIME)) return ENOTSUP;
    *seconds = (int64_t)info.stx_btime.tv_sec;
    *nanoseconds = (int64_t)info.stx_btime.tv_nsec;
    return 0;
#else
    (void)directory, (void)path, (void)seconds, (void)nanoseconds;
    return ENOTSUP;
#endif
}

int routelog_birth_time(int fd, int64_t *seconds, int64_t *nanoseconds) {
    return birth_time_at(fd, "", seconds, nanoseconds);
}

int routelog_birth_time_of_name(const char *path, int64_t *seconds, int64_t *nanoseconds) {
    return birth_time_at(AT_FDCWD, path, seconds, nanoseconds);
}

int routelog_renameat_exclusive(int from_dir, const char *from, int to_dir, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
    // RENAME_NOREPLACE (1): the check and the rename are one step.
    if (syscall(SYS_renameat2, from_dir, from, to_dir, to, 1) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return errno;
#elif defined(__APPLE__) && defined(RENAME_EXCL)
    if (renameatx_np(from_dir, from, to_dir, to, RENAME_EXCL) == 0) return 0;
    if (errno != ENOTSUP && errno != EINVAL) return errno;
#endif
    // A file system that cannot rename without replacing (some network ones): look,
    // then rename, which leaves a moment between the two.
    struct stat info;
    if (fstatat(to_dir, to, &info, AT_SYMLINK_NOFOLLOW) == 0) return EEXIST;
    if (errno != ENOENT) return errno;
    return renameat(from_dir, from, to_dir, to) == 0 ? 0 : errno;
}
