/* Campaigns by path, or by name among the source tree's and the installed
 * ones (golden/sweeps, beside the suites); shared by fpref sweep and
 * fpref-sweep-mpi. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep_find.h"

int find_named_file(const char *name, const char *ext, const char *const *dirs, size_t ndirs, char *path, size_t len)
{
	if (strchr(name, '/') || strstr(name, ext)) {
		snprintf(path, len, "%s", name);
		return access(path, R_OK) == 0 ? 0 : -1;
	}
	for (size_t i = 0; i < ndirs; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(path, len, "%s/%s%s", dirs[i], name, ext);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

int sweep_find_campaign(const char *name, char *path, size_t len)
{
	const char *dirs[] = { getenv("FPREF_SWEEPS"), FPREF_SOURCE_SUITES "/../sweeps",
			       FPREF_INSTALLED_SUITES "/../sweeps" };
	return find_named_file(name, ".campaign", dirs, sizeof dirs / sizeof dirs[0], path, len);
}

int sweep_parse_shard(const char *text, unsigned *index, unsigned *count)
{
	char tail;
	*index = 0;
	*count = 1;
	return !text || (sscanf(text, "%u/%u%c", index, count, &tail) == 2 && *count > 0 && *index < *count) ? 0 : -1;
}
