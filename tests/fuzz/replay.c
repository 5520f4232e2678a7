/* Run a fuzz target over files and folders of inputs, without libFuzzer:
 * the corpus and every crash found become regression tests. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: cannot open\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *more = realloc(buf, 2 * cap);
			if (!more)
				abort();
			buf = more;
			cap *= 2;
		}
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, status = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			status |= run_file(argv[i]);
			files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			status |= run_file(path);
			files++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d inputs\n", files);
	return status ? 1 : files > 0 ? 0 : 1;
}
