/* lossscale's iteration lists through the command: a --steps-file (the
 * input after the first byte) and an --overflow-at list (the same bytes up
 * to a NUL) with --steps, under the scaler the first byte picks. */
#include "../../tools/cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	static const char *const scalers[] = { "pytorch", "deepspeed", "apex", "static" };
	char *scaler = (char *)scalers[data[0] % 4], steps[8];
	snprintf(steps, sizeof steps, "%u", (unsigned)data[0] >> 2); /* 0..63 iterations */
	char path[128];
	fuzz_file(data + 1, size - 1, path, sizeof path);
	char *file_args[] = { "--scaler", scaler, "--steps-file", path, "--summary", NULL };
	fuzz_command(cmd_lossscale, file_args);
	char *list = fuzz_string(data + 1, size - 1);
	char *list_args[] = { "--scaler", scaler, "--overflow-at", list, "--steps", steps, "--json", NULL };
	fuzz_command(cmd_lossscale, list_args);
	char *scale_args[] = { "--scaler", "pytorch", "--overflow-at", "1", "--steps", "3", "--new-scale", list, NULL };
	fuzz_command(cmd_lossscale, scale_args);
	free(list);
	remove(path);
	return 0;
}
