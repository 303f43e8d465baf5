// Thin wrappers over Linux epoll(7) for the HTTP server's event loops, and the CPU count that sizes them.
//
// The Glibc module does not export <sys/epoll.h>, and `struct epoll_event` is packed on x86-64, so events come
// back in an unpacked struct of our own.
#ifndef CEVENTPOLL_H
#define CEVENTPOLL_H

#include <stdint.h>

/// Readiness bits, as in <sys/epoll.h>.
extern const uint32_t cep_in;
extern const uint32_t cep_out;
extern const uint32_t cep_err;
extern const uint32_t cep_hup;

/// One ready descriptor: the token it was registered with and its readiness bits.
typedef struct cep_event {
    uint64_t token;
    uint32_t events;
} cep_event;

/// epoll_create1(EPOLL_CLOEXEC); -1 and errno on failure.
int cep_create(void);

/// Registers `fd` with `events` (level-triggered) and `token`; 0, or -1 and errno.
int cep_add(int epfd, int fd, uint32_t events, uint64_t token);

/// Changes the events `fd` is watched for; 0, or -1 and errno.
int cep_modify(int epfd, int fd, uint32_t events, uint64_t token);

/// Stops watching `fd`; 0, or -1 and errno.
int cep_remove(int epfd, int fd);

/// epoll_wait into `events` (at most `capacity`, at most 256); the count, or -1 and errno.
int cep_wait(int epfd, cep_event *events, int capacity, int timeout_ms);

/// CPU cores this process may run on (its affinity mask, as a container limits it), at least 1.
int cep_available_cpu_count(void);

/// Names the calling thread (what `top -H`, `perf` and `gdb` show): its first 15 bytes, the kernel's limit; 0, or an
/// error number.
int cep_name_current_thread(const char *name);

#endif
