/* Finding a sweep campaign's file and parsing --shard, shared by fpref sweep
 * and fpref-sweep-mpi. */
#ifndef FPREF_SWEEP_FIND_H
#define FPREF_SWEEP_FIND_H
#include <stdbool.h>
#include <stddef.h>
/* A file by path (NAME holds a '/' or ends in EXT), else NAME + EXT in the
 * first of dirs that has it (NULL or empty entries skipped): 0, or -1. */
int find_named_file(const char *name, const char *ext, const char *const *dirs, size_t ndirs, char *path, size_t len);
/* A campaign's file from a path or a name in golden/sweeps: 0, or -1. */
int sweep_find_campaign(const char *name, char *path, size_t len);
/* Every campaign's name found by name (sweep_find_campaign's folders), each
 * once, sorted; *n of them (free with sweep_campaign_names_free).  NULL with
 * *n = 0 when there are none or memory ran out. */
char **sweep_campaign_names(size_t *n);
void sweep_campaign_names_free(char **names, size_t n);
/* "i/N" with 0 <= i < N (NULL: 0/1): 0, or -1. */
int sweep_parse_shard(const char *text, unsigned *index, unsigned *count);
#endif
