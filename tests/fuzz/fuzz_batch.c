/* TestFloat batch lines as the commands read them: lines split into
 * tokens, each token a hex pattern of a format. */
#include "../../tools/cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	struct cli_lines lines = { .in = in };
	char *tokens[8], err[512];
	int status = 0, n;
	struct fpref_format f;
	fpref_format_parse("float16", &f, NULL, 0);
	struct fuzz_quiet q = fuzz_quiet_begin(); /* the reader reports bad lines on stderr */
	while ((n = cli_next_tokens(&lines, tokens, 8, &status)) > 0)
		for (int i = 0; i < n; i++) {
			uint64_t bits;
			fpref_format_parse_bits(&f, tokens[i], &bits, err, sizeof err);
		}
	fuzz_quiet_end(q);
	cli_lines_free(&lines);
	fclose(in);
	return 0;
}
