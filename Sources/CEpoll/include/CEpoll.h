// Linux's epoll and eventfd, which Swift's Glibc module does not bring in: the plain-HTTP
// transport's event loop (Sources/QueueSim/Live/Plain) waits on them. Empty elsewhere: the
// plain transport is Linux-only, and QueueSim depends on this target on Linux only.
#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
