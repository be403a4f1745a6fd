#ifndef CLINUXSHIMS_H
#define CLINUXSHIMS_H
// Linux calls that Swift's Glibc module does not export, re-exported for Swift.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <signal.h>
#include <malloc.h>

int modeld_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int modeld_fcntl_lock(int fd, int wait);      // exclusive whole-file F_SETLK(W) write lock; -1 + errno on failure
int modeld_fcntl_unlock(int fd);
// Open-file-description lock (F_OFD_SETLK(W)): like fcntl locks and conflicting with them across
// processes, but owned by the fd, so two fds in one process (two threads) also exclude each other.
int modeld_ofd_lock(int fd, int wait);        // exclusive whole-file OFD write lock; -1 + errno on failure
int modeld_ofd_unlock(int fd);
int modeld_ofd_is_locked(int fd);            // 1: another open file description holds a lock, 0: none, -1 + errno; takes nothing
int modeld_sigmask_block(const int *signals, int count); // block in this thread (inherited by threads it starts)
// Raises the calling thread's nice value by `increment` (Linux: per thread); 0 or -1 + errno.
int modeld_lower_thread_priority(int increment);
// Moves the calling thread to SCHED_IDLE: it runs only when a core would otherwise idle; 0 or -1 + errno.
int modeld_idle_thread_priority(void);
// The event loop running on this thread (NULL elsewhere): lets `Exchange.complete` skip the mailbox.
void modeld_set_current_loop(void *loop);
void *modeld_current_loop(void);
// sync_file_range(…, SYNC_FILE_RANGE_WRITE): starts writeback of a file range without waiting; 0 or -1 + errno.
int modeld_start_writeback(int fd, long long offset, long long length);
// malloc_trim(0) where the C library has it (glibc): gives freed heap pages back to the system.
void modeld_release_free_memory(void);
#endif
