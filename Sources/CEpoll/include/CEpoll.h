// Linux's epoll and eventfd, which Swift's Glibc module does not bring in: the plain-HTTP
// transport's event loop (Sources/QueueSim/Live/Plain) waits on them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
