/* Reading the tensor-core outputs measured on V100, A100, H100 and Ada
 * (../shared/tc-hw, or the folder named by FPREF_TC_HW; its README gives the
 * layout), shared by the suites that replay them. */
#ifndef FPREF_TESTS_TC_HW_H
#define FPREF_TESTS_TC_HW_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dataset {
	const char *gpu, *folder, *input, *file_tag;
};

static const struct dataset sets[] = {
	{ "v100", "V100/fp16", "float16", "fp16" },   { "a100", "A100/fp16", "float16", "fp16" },
	{ "a100", "A100/bf16", "bfloat16", "bf16" },  { "a100", "A100/tf32", "tf32", "tf32" },
	{ "h100", "H100/fp16", "float16", "fp16" },   { "h100", "H100/bf16", "bfloat16", "bf16" },
	{ "h100", "H100/tf32", "tf32", "tf32" },      { "h100", "H100/E4M3", "float8_e4m3fn", "E4M3" },
	{ "h100", "H100/E5M2", "float8_e5m2", "E5M2" }, { "ada", "Ada/fp16", "float16", "fp16" },
	{ "ada", "Ada/bf16", "bfloat16", "bf16" },    { "ada", "Ada/tf32", "tf32", "tf32" },
	{ "ada", "Ada/E4M3", "float8_e4m3fn", "E4M3" }, { "ada", "Ada/E5M2", "float8_e5m2", "E5M2" },
};

static inline const char *data_folder(void)
{
	const char *v = getenv("FPREF_TC_HW");
	return v && *v ? v : "../shared/tc-hw";
}

static inline FILE *open_data(const struct dataset *s, const char *kind, const char *tag)
{
	char path[1024], gpu[16];
	snprintf(gpu, sizeof gpu, "%.*s", (int)(strchr(s->folder, '/') - s->folder), s->folder);
	snprintf(path, sizeof path, "%s/%s/%s_%s_%s.txt", data_folder(), s->folder, kind, gpu, tag);
	return fopen(path, "r");
}

/* One row of hex words; the count, or -1 at the end. */
static inline int read_hex_row(FILE *f, uint64_t *v, int max)
{
	char line[4096];
	if (!fgets(line, sizeof line, f))
		return -1;
	int n = 0;
	for (char *t = strtok(line, " \t\r\n"); t && n < max; t = strtok(NULL, " \t\r\n"))
		v[n++] = strtoull(t, NULL, 16);
	return n;
}

/* One binary word; 0, or -1 at the end. */
static inline int read_binary(FILE *f, uint64_t *v)
{
	char line[128];
	if (!fgets(line, sizeof line, f))
		return -1;
	*v = strtoull(line, NULL, 2);
	return 0;
}

#endif
