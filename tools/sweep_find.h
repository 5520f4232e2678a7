#ifndef FPREF_SWEEP_FIND_H
#define FPREF_SWEEP_FIND_H
#include <stddef.h>
/* A campaign's file from a path or a name in golden/sweeps: 0, or -1. */
int sweep_find_campaign(const char *name, char *path, size_t len);
/* "i/N" with 0 <= i < N (NULL: 0/1): 0, or -1. */
int sweep_parse_shard(const char *text, unsigned *index, unsigned *count);
#endif
