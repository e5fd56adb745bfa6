#ifndef QUEUESIM_CYAML_SHIM_H
#define QUEUESIM_CYAML_SHIM_H
#include <yaml.h>
#endif
