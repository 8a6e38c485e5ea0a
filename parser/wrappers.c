/* parser/wrappers.c - placeholder; written by the parser work. */
#include "internal.h"
