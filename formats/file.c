/* Atomic files: write a temporary, sync it, rename it over the target. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fpref_file.h"

int fpref_atomic_open(struct fpref_atomic *a, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path) + 1 : 0;
	if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
	    snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.partial", dir_len, path, path + dir_len) >= (int)sizeof a->tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	a->f = fopen(a->tmp, "wb");
	if (!a->f) {
		snprintf(err, errlen, "%s: cannot write (%s)", path, strerror(errno));
		return -1;
	}
	return 0;
}

int fpref_atomic_commit(struct fpref_atomic *a, int ok, char *err, size_t errlen)
{
	int saved = ok ? 0 : errno;
	if (ok && (fflush(a->f) != 0 || fsync(fileno(a->f)) != 0)) { /* on disk before the rename makes it visible */
		ok = 0;
		saved = errno;
	}
	if (fclose(a->f) != 0 && ok) {
		ok = 0;
		saved = errno;
	}
	a->f = NULL;
	if (ok && rename(a->tmp, a->path) == 0)
		return 0;
	if (ok)
		saved = errno;
	remove(a->tmp);
	snprintf(err, errlen, "%s: cannot write (%s)", a->path, strerror(saved ? saved : EIO));
	return -1;
}
