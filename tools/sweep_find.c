/* Campaigns by path, or by name among the source tree's and the installed
 * ones (golden/sweeps, beside the suites); shared by fpref sweep and
 * fpref-sweep-mpi. */
#include <dirent.h>
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

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

char **sweep_campaign_names(size_t *n)
{
	const char *dirs[] = { getenv("FPREF_SWEEPS"), FPREF_SOURCE_SUITES "/../sweeps",
			       FPREF_INSTALLED_SUITES "/../sweeps" };
	static const char ext[] = ".campaign";
	size_t count = 0, cap = 0;
	char **names = NULL;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		DIR *d = dirs[i] && *dirs[i] ? opendir(dirs[i]) : NULL;
		for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
			size_t len = strlen(e->d_name);
			if (len <= sizeof ext - 1 || strcmp(e->d_name + len - (sizeof ext - 1), ext) != 0)
				continue;
			char *name = strndup(e->d_name, len - (sizeof ext - 1));
			bool again = false;
			for (size_t k = 0; name && k < count && !again; k++)
				again = strcmp(names[k], name) == 0;
			if (again) { /* an installed copy of a source-tree campaign */
				free(name);
				continue;
			}
			if (count == cap) {
				cap = cap ? 2 * cap : 16;
				char **more = realloc(names, cap * sizeof *names);
				if (!more)
					name = NULL;
				else
					names = more;
			}
			if (!name) {
				closedir(d);
				sweep_campaign_names_free(names, count);
				*n = 0;
				return NULL;
			}
			names[count++] = name;
		}
		if (d)
			closedir(d);
	}
	if (count)
		qsort(names, count, sizeof *names, by_name);
	*n = count;
	return names;
}

void sweep_campaign_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int sweep_parse_shard(const char *text, unsigned *index, unsigned *count)
{
	char tail;
	*index = 0;
	*count = 1;
	return !text || (sscanf(text, "%u/%u%c", index, count, &tail) == 2 && *count > 0 && *index < *count) ? 0 : -1;
}
