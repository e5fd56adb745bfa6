// Linux's epoll, which Swift's Glibc module does not bring in.
#include <sys/epoll.h>
