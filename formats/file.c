/* Atomic files: write a temporary, sync it, rename it over the target. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fpref_formats_file.h"

/* A temporary of this process's own (".NAME.PID.N.partial", created with
 * O_EXCL): two runs writing the same path at once never share one, and
 * neither can truncate the other's.  N starts from the clock and the
 * object's address, so that threads of one process differ too. */
static FILE *open_unique(struct fpref_atomic *a, int dir_len, const char *path)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	unsigned long n = (unsigned long)t.tv_nsec ^ (unsigned long)(uintptr_t)a;
	for (int attempt = 0; attempt < 100; attempt++, n = n * 6364136223846793005ul + 1442695040888963407ul) {
		int len = snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.%ld.%lx.partial", dir_len, path, path + dir_len,
				   (long)getpid(), n & 0xffffffu);
		if (len >= (int)sizeof a->tmp) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* 0666 less the umask, as fopen */
		if (fd >= 0) {
			FILE *f = fdopen(fd, "wb");
			if (!f) {
				close(fd);
				remove(a->tmp);
			}
			return f;
		}
		if (errno != EEXIST)
			return NULL;
	}
	return NULL;
}

int fpref_atomic_open(struct fpref_atomic *a, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path) + 1 : 0;
	if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	a->f = open_unique(a, dir_len, path);
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
