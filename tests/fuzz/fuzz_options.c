/* Command-line option values through the commands that parse them: the
 * first byte picks the option, the rest (to a NUL) is its value.  Every
 * command line stops right after the option is parsed (a missing suite or
 * file, an unknown format or distribution after it), or runs a step or two,
 * so that an input costs what parsing costs. */
#include "../../tools/cli.h"
#include "fuzz.h"

/* Where a command line takes the fuzzed value. */
static const char value_slot[] = "VALUE";
#define V value_slot

/* One command line: its subcommand, then its words to a NULL. */
struct option_case {
	int (*cmd)(int, char **);
	const char *words[12];
};

static const struct option_case cases[] = {
	{ cmd_gen, { "--shard", V, "--suite", "/nonexistent/fpref-fuzz.suite", "--list" } },
	{ cmd_gen, { "--jobs", V, "--suite", "/nonexistent/fpref-fuzz.suite" } },
	{ cmd_verify, { "--tolerance", V, "/nonexistent/golden", "/nonexistent/results" } },
	{ cmd_verify, { "--show", V, "/nonexistent/golden", "/nonexistent/results" } },
	{ cmd_gemm, { "--model", "exact", "--in", "float16", "--size", V, "--dist", "none-such" } },
	{ cmd_gemm, { "--model", "exact", "--in", "float16", "--size", "1x1x2", "--seed", V } },
	{ cmd_gemm, { "--model", "exact", "--in", "float16", "--size", "1x1x2", "--scale-log2", V } },
	{ cmd_gemm, { "--model", "generic", "--in", "float16", "--block", V, "--frac", "20", "--size", "1x1x4" } },
	{ cmd_convert, { "--sr-bits", V, "--round", "sr", "--to", "none-such" } },
	{ cmd_convert, { "--round", "sr", "--sr-bits", V, "--to", "e4m3", "1.3" } },
	{ cmd_convert, { "--to", V, "--from", "f16", "3C00" } },
	{ cmd_lossscale, { "--scaler", "pytorch", "--init-scale", V, "--overflow-at", "1", "--steps", "2" } },
	{ cmd_lossscale, { "--scaler", "deepspeed", "--hysteresis", V, "--overflow-at", "1", "--steps", "2" } },
	{ cmd_probe, { "gen", "--inputs", "f16", "--output", "f32", "--k", V, "--seed", "x" } },
	{ cmd_probe, { "infer", "--results", "/nonexistent/r", "--block", V, "--frac", "3" } },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const struct option_case *c = &cases[data[0] % (sizeof cases / sizeof cases[0])];
	char *value = fuzz_string(data + 1, size - 1), *argv[13];
	int argc = 0;
	for (int i = 0; i < 12 && c->words[i]; i++)
		argv[argc++] = c->words[i] == value_slot ? value : (char *)c->words[i];
	argv[argc] = NULL;
	fuzz_command(c->cmd, argv);
	free(value);
	return 0;
}
