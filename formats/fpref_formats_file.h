/* fpref — files written whole or not at all: the data goes to a hidden
 * temporary beside the path, is flushed to disk, and is renamed over the
 * path, so that a reader sees the old file, or the new one complete. */
#ifndef FPREF_FILE_H
#define FPREF_FILE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fpref_atomic {
	FILE *f;
	char path[1024];
	char tmp[1100];
};

/* Open a temporary of this process's own for path (".NAME.PID.N.partial"
 * in path's folder, created exclusively, so that concurrent writers of one
 * path never share it).  0, or
 * -1 with a message. */
int fpref_atomic_open(struct fpref_atomic *a, const char *path, char *err, size_t errlen);
/* Flush, sync, close and rename; ok false (a write failed) only cleans up.
 * 0, or -1 with a message (the temporary removed, path untouched). */
int fpref_atomic_commit(struct fpref_atomic *a, int ok, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
