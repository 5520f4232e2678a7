/* Probe result files as probe infer reads them: '# formats' lines, dot
 * lines of hex patterns, K from the first line.  The first byte says
 * whether --in and --out were given (and which), as they change the path. */
#include "../../tools/probe_io.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	static const char *const given[][2] = { { NULL, NULL },
						 { "float16", "float32" },
						 { "float8_e4m3fn", "float16" },
						 { "bfloat16", "float32" } };
	const char *const *g = given[data[0] % 4];
	char path[128];
	fuzz_file(data + 1, size - 1, path, sizeof path);
	struct probe_cases c = { 0 };
	c.have_formats = g[0] != NULL;
	if (g[0]) {
		fpref_format_parse(g[0], &c.in, NULL, 0);
		fpref_format_parse(g[1], &c.out, NULL, 0);
	}
	struct fuzz_quiet q = fuzz_quiet_begin();
	if (probe_cases_from_lines(path, &c) == 0) {
		/* what was read is count rows of 2K+1 patterns and count results */
		if (c.K == 0 || c.count == 0 || !c.have_formats)
			abort();
		volatile uint64_t sum = 0;
		for (size_t i = 0; i < c.count * (2 * c.K + 1); i++)
			sum ^= c.rows[i];
		for (size_t i = 0; i < c.count; i++)
			sum ^= c.d[i];
		(void)sum;
	}
	fuzz_quiet_end(q);
	probe_cases_free(&c);
	remove(path);
	return 0;
}
