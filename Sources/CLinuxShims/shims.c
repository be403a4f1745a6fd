#define _GNU_SOURCE
#include "CLinuxShims.h"
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int modeld_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

static int lock_op(int fd, short type, int cmd) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    return fcntl(fd, cmd, &fl);
}

int modeld_fcntl_lock(int fd, int wait) { return lock_op(fd, F_WRLCK, wait ? F_SETLKW : F_SETLK); }
int modeld_fcntl_unlock(int fd) { return lock_op(fd, F_UNLCK, F_SETLK); }

int modeld_ofd_lock(int fd, int wait) { return lock_op(fd, F_WRLCK, wait ? F_OFD_SETLKW : F_OFD_SETLK); }
int modeld_ofd_unlock(int fd) { return lock_op(fd, F_UNLCK, F_OFD_SETLK); }

int modeld_ofd_is_locked(int fd) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return -1;
    return fl.l_type != F_UNLCK;
}

int modeld_sigmask_block(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static __thread void *current_loop;
void modeld_set_current_loop(void *loop) { current_loop = loop; }
void *modeld_current_loop(void) { return current_loop; }

int modeld_lower_thread_priority(int increment) {
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int current = getpriority(PRIO_PROCESS, tid);
    if (current == -1 && errno != 0) return -1;
    return setpriority(PRIO_PROCESS, tid, current + increment);
}

int modeld_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int modeld_idle_thread_priority(void) {
    struct sched_param param = { .sched_priority = 0 };
    return sched_setscheduler(0, SCHED_IDLE, &param);   // Linux: pid 0 is the calling thread
}

void modeld_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
