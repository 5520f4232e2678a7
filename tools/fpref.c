/* fpref: the command.  One subcommand per file; this one only dispatches. */
#include <string.h>

#include "config.h"
#include "cli.h"

static const char usage[] =
	"usage: fpref COMMAND [OPTIONS]\n"
	"\n"
	"commands:\n"
	"  formats [--json]                      the format catalogue and its exact constants\n"
	"  convert --to FMT [--from FMT] [ENV] [--engine emu|ref] [VALUE...]\n"
	"                                        round values to FMT; with no VALUE, read TestFloat\n"
	"                                        lines (hex operand first) and write 'operand result flags';\n"
	"                                        bit patterns go through the emulator unless --engine ref\n"
	"  explain VALUE --to FMT [--from FMT] [ENV]\n"
	"                                        how one value rounds: fields, neighbours, rule, error\n"
	"  table FMT                             every encoding of a format of 8 bits or fewer\n"
	"  op OP --fmt FMT [ENV] [--engine emu|ref] [--numbers] [A [B [C]]]\n"
	"                                        one operation (add sub mul div sqrt fma min max eq lt le)\n"
	"                                        on hex patterns of FMT (--numbers: decimals, rounded first);\n"
	"                                        with no operands, TestFloat lines 'a b' -> 'a b result flags'\n"
	"  bench [size=LOG2N] [repeat=N]         elements/s of the emulator and the oracle beside memcpy\n"
	"  dot --model MODEL --in FMT [--out FMT] [MODEL OPTIONS] [ENV]\n"
	"                                        dot products: lines 'a_1..a_K b_1..b_K c' (hex) answered\n"
	"                                        with d appended\n"
	"  gemm --model MODEL --in FMT [--out FMT] [MODEL OPTIONS] [ENV] [--json] [--save D.npy]\n"
	"       [--report errors|none]\n"
	"       (--a A.npy --b B.npy [--c C.npy] | --size MxNxK [--dist normal|uniform|positive] [--seed N]\n"
	"       [--scale-log2 P]) [--source FMT [--quantize MODE]]\n"
	"                                        D = A B + C; each element's error against the exact\n"
	"                                        product, and its a priori bound; --source: A and B are\n"
	"                                        values of FMT, quantised to --in (rne), errors against\n"
	"                                        the exact product of the FMT values (PyTorch's protocol)\n"
	"                                        --report none: D alone, no exact product or bound (fast)\n"
	"  gen [--suite NAME|FILE] --out DIR [--shard i/N] [--jobs N] [--npy] [--list] [--merge-manifests]\n"
	"                                        golden files of a suite (default: default), every\n"
	"                                        vector computed by the emulator and the oracle;\n"
	"                                        --merge-manifests: MANIFEST from the shards' ones\n"
	"  mutants [--suite NAME|FILE] [--mutant NAME] [--jobs N] [--all] [--json] [--list]\n"
	"                                        the kill matrix: which realistic kernel bugs each\n"
	"                                        golden file of a suite exposes, by how many vectors\n"
	"  verify GOLDEN [RESULTS] [--tolerance Nulp|Xrel] [--show N] [--json]\n"
	"                                        judge RESULTS (lines, or .npy) against a golden file,\n"
	"                                        or a folder of results against a folder of golden\n"
	"                                        files; without RESULTS, recheck with the oracle\n"
	"  verify-gemm --a A.npy --b B.npy [--c C.npy] --d D.npy --model MODEL --in FMT --out FMT\n"
	"       [MODEL OPTIONS] [ENV] [--tolerance Nulp|Xrel] [--show N] [--json]\n"
	"                                        judge a kernel's D element by element against the\n"
	"                                        model's, both against the exact product and the bound\n"
	"  lossscale --scaler pytorch|deepspeed|apex|static [SCALER OPTIONS] [--profile cuda] [--json] [--summary]\n"
	"       (--overflow-at 4,17,.. --steps N | --steps-file F | --grads G.npy [--grads H.npy ..] |\n"
	"       --simulate --steps N [--dist D] [--scale-log2 A] [--scale-log2-end B] [--values N] [--seed S])\n"
	"                                        replay a loss scaler: each iteration's scale, applied or\n"
	"                                        skipped, its counters; with gradients, the FP16 underflow\n"
	"                                        with and without the scale (README: Loss scaling)\n"
	"  probe gen --inputs FMT --output FMT --k K [--out FILE] [--seed N] [--model MODEL ...]\n"
	"                                        a golden dot file of inputs that reveal a tensor core's\n"
	"                                        numerics (d by MODEL, default the newest preset)\n"
	"  probe infer --results R [--golden G] [--in FMT --out FMT] [--block N] [--frac F]\n"
	"                                        the block models that reproduce measured results\n"
	"                                        (exit 0: exactly one class)\n"
	"  quantize --scheme tensor|delayed|tile128|block128|mxfp8|mxfp6|mxfp4|nvfp4 --in X.npy\n"
	"       --codes C.npy --scales S.npy [--dequant D.npy] [--format e4m3|e5m2] [--pow2|--no-pow2]\n"
	"       [--recipe deepseek|te] [--eps E] [--margin M --history L --amax-algo max|most_recent]\n"
	"       [--amax-nan ignore|propagate] [--nan keep|reject] [--json]\n"
	"                                        quantise a tensor with a scaling recipe; codes, scales\n"
	"                                        and the error of the round trip (docs/scaling.md)\n"
	"\n"
	"VALUE: a decimal (-1.5e-3), a hex float (0x1.8p3), inf, nan, snan; with --from FMT,\n"
	"       a hex bit pattern of FMT (3c00 or 0x3c00).\n"
	"FMT:   a name from 'fpref formats' (float8_e4m3fn, e4m3, bf16, ...) or a custom\n"
	"       eXmY[,bias=N][,specials=ieee|fn|fnuz|none][,subnormals=on|off][,unsigned][,zero=off]\n"
	"ENV:   --round rne|rna|rtz|rup|rdn|rod|sr   rounding (default rne)\n"
	"       --sat | --overflow ieee|sat          overflow policy (default ieee)\n"
	"       --ftz  --daz                         flush tiny results / read subnormal inputs as zero\n"
	"       --tininess before|after              underflow detection (default after)\n"
	"       --sr-bits HEX|W:HEX|seed=N|W:seed=N  random bits for --round sr\n"
	"       --profile cuda|onnx-cast-19|onnx-cast-24|ml_dtypes|ocp\n"
	"                                            behave as that implementation (--round/--sat override)\n"
	"MODEL: v100, a100, h100, h100-mma, h100-wgmma, ada (tensor cores; --out float32 or float16),\n"
	"       generic (--block N --frac F [--floor E|none] [--final rtz|rne]); recursive, pairwise,\n"
	"       blocked [--block N], fma-chain, kahan (rounded in --out under ENV); exact (the oracle).\n"
	"       --promote NC: tensor-core partial sums added to an FP32 accumulator every NC products\n"
	"Flags (two hex digits): inexact 01, underflow 02, overflow 04, infinite 08, invalid 10.\n"
	"Exit status: 0 done, 1 failure, 2 bad input.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return CLI_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("fpref %s (MPFR %s, GMP %s)\n", PACKAGE_VERSION, mpfr_get_version(), gmp_version);
		return CLI_EXIT_OK;
	}
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} commands[] = {
		{ "formats", cmd_formats },
		{ "convert", cmd_convert },
		{ "explain", cmd_explain },
		{ "table", cmd_table },
		{ "op", cmd_op },
		{ "bench", cmd_bench },
		{ "dot", cmd_dot },
		{ "gemm", cmd_gemm },
		{ "verify-gemm", cmd_verify_gemm },
		{ "gen", cmd_gen },
		{ "mutants", cmd_mutants },
		{ "verify", cmd_verify },
		{ "lossscale", cmd_lossscale },
		{ "probe", cmd_probe },
		{ "quantize", cmd_quantize },
	};
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(cmd, commands[i].name) == 0) {
			int status = commands[i].run(argc - 2, argv + 2);
			if (fflush(stdout) != 0 || ferror(stdout)) {
				cli_error("cannot write the output");
				return CLI_EXIT_FAIL;
			}
			return status;
		}
	cli_error("unknown command '%s' (choices: formats, convert, explain, table, op, bench, dot, gemm, gen, mutants, verify, lossscale, probe, quantize; see fpref --help)", cmd);
	return CLI_EXIT_USAGE;
}
