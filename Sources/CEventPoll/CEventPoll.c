#define _GNU_SOURCE
#include "CEventPoll.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

const uint32_t cep_in = EPOLLIN;
const uint32_t cep_out = EPOLLOUT;
const uint32_t cep_err = EPOLLERR;
const uint32_t cep_hup = EPOLLHUP;

int cep_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int control(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epfd, op, fd, &event);
}

int cep_add(int epfd, int fd, uint32_t events, uint64_t token) {
    return control(epfd, EPOLL_CTL_ADD, fd, events, token);
}

int cep_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    return control(epfd, EPOLL_CTL_MOD, fd, events, token);
}

int cep_remove(int epfd, int fd) {
    // A non-null event keeps kernels before 2.6.9 happy; it is ignored.
    struct epoll_event unused = {0};
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &unused);
}

int cep_wait(int epfd, cep_event *events, int capacity, int timeout_ms) {
    struct epoll_event raw[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, raw, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i].token = raw[i].data.u64;
        events[i].events = raw[i].events;
    }
    return count;
}

int cep_available_cpu_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int cep_name_current_thread(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    return pthread_setname_np(pthread_self(), truncated);
}
