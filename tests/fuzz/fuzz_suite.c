/* Suite files: lines of what to generate (op, formats, environments,
 * vector kinds), expanded into jobs; each job's header is then written. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], err[2048];
	fuzz_file(data, size, path, sizeof path);
	struct fpref_golden_suite s;
	if (fpref_golden_suite_read(path, &s, err, sizeof err) == 0) {
		/* what was read must make a header: the job's fields are all set */
		char header[4096];
		for (size_t k = 0; k < s.njobs && k < 64; k++)
			fpref_golden_header(&s.jobs[k], s.name, 1, header, sizeof header);
		fpref_golden_suite_free(&s);
	}
	remove(path);
	return 0;
}
