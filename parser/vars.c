/* parser/vars.c - placeholder; written by the parser work. */
#include "internal.h"
