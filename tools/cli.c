/* What every subcommand shares: error messages, the option table's parser
 * (shared options, choices, positionals), --help and man-page text from that
 * table, format and hex parsing, and JSON spellings of numbers. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("fpref: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_parse_format(const char *cmd, const char *text, struct fpref_format *f)
{
	char err[1024];
	if (fpref_format_parse(text, f, err, sizeof err) != 0) {
		cli_fail(cmd, "%s", err);
		return -1;
	}
	return 0;
}

int cli_parse_operands(const char *cmd, const char *in, const char *in_a, const char *in_b, struct fpref_format *a,
		       struct fpref_format *b)
{
	if (in && (in_a || in_b)) {
		cli_fail(cmd, "--in-format names the format of both A and B: give --in-format FMT, or --a-format FMT --b-format FMT, not both");
		return CLI_EXIT_USAGE;
	}
	if (!in && !in_a && !in_b) {
		cli_fail(cmd, "needs --in-format FMT (the format of A and B), or --a-format FMT --b-format FMT");
		return CLI_EXIT_USAGE;
	}
	if (!in && (!in_a || !in_b)) {
		cli_fail(cmd, "%s needs %s too (or --in-format FMT for both)", in_a ? "--a-format" : "--b-format", in_a ? "--b-format" : "--a-format");
		return CLI_EXIT_USAGE;
	}
	if (cli_parse_format(cmd, in ? in : in_a, a) != 0 || cli_parse_format(cmd, in ? in : in_b, b) != 0)
		return CLI_EXIT_USAGE;
	return 0;
}

void cli_hex(const struct fpref_format *f, uint64_t bits, char *buf, size_t len)
{
	fpref_format_hex(f, bits, buf, len);
}

int cli_parse_bits(const struct fpref_format *f, const char *text, uint64_t *bits, char *err, size_t errlen)
{
	return fpref_format_parse_bits(f, text, bits, err, errlen);
}

int cli_parse_threads(const char *cmd, const char *text, unsigned *threads)
{
	char tail;
	if (!text) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		*threads = cores < 1 ? 1 : cores > 256 ? 256 : (unsigned)cores;
		return 0;
	}
	if (sscanf(text, "%u%c", threads, &tail) != 1 || *threads == 0 || *threads > 256) {
		cli_fail(cmd, "bad --threads '%s' (1..256)", text);
		return -1;
	}
	return 0;
}

void cli_put(FILE *out, char *s)
{
	fputs(s ? s : "?", out);
	free(s);
}

void cli_put_code_value(FILE *out, const struct fpref_format *f, uint64_t code)
{
	struct fpref_unpacked u;
	fpref_decode(f, code, &u);
	cli_put(out, fpref_ref_unpacked_decimal(&u));
}

void cli_put_int_range(FILE *out, const struct fpref_format *f)
{
	fpref_ref_put_int_range(out, f);
}

static bool looks_like_number(const char *s)
{
	if (s[0] != '-')
		return true;
	return isdigit((unsigned char)s[1]) || s[1] == '.' || strncasecmp(s + 1, "inf", 3) == 0 ||
	       strncasecmp(s + 1, "nan", 3) == 0 || strncasecmp(s + 1, "snan", 4) == 0 ||
	       strncasecmp(s + 1, "qnan", 4) == 0;
}

void cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, cmd ? "fpref %s: " : "fpref: ", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define SHARED(f) offsetof(struct cli_options, f)

/* The options shared by several subcommands, each in its group. */
static const struct cli_opt shared_opts[] = {
	{ "--to", CLI_VALUE, "FMT", NULL, "the target format (fpref formats lists them)", SHARED(text.to), CLI_TO },
	{ "--format", CLI_VALUE, "FMT", NULL, "the format of the operands and the result", SHARED(text.to), CLI_FMT },
	{ "--from", CLI_VALUE, "FMT", NULL, "read each VALUE as a hex bit pattern of FMT", SHARED(text.from), CLI_FROM },
	{ "--engine", CLI_VALUE, "emu|ref", "emu",
	  "who computes from bit patterns: emu, the integer emulator; ref, the MPFR oracle", SHARED(text.engine),
	  CLI_ENGINE },
	{ "--json", CLI_FLAG, NULL, NULL, "one JSON document on stdout", SHARED(json), CLI_JSON },
	{ "--round", CLI_VALUE, "rne|rna|rtz|rup|rdn|rod|sr|sra|srb|src|ptx-rs|te-nvfp4|avx10-bias|avx10-bias-s|amd-sr",
	  "rne",
	  "rounding (any case); sr is sra, sra/srb/src are P3109's stochastic A, B, C; the last five, stochastic "
	  "rounding as that instruction does it (docs/stochastic-rounding.md)", SHARED(text.round), CLI_ENV },
	{ "--sat", CLI_FLAG, NULL, NULL, "overflow saturates to max finite (as --overflow sat)", SHARED(text.sat), CLI_ENV },
	{ "--overflow", CLI_VALUE, "ieee|sat|satfinite|satpropagate|satnone", "ieee",
	  "overflow policy (satfinite = sat; satpropagate, satnone: P3109's)", SHARED(text.overflow), CLI_ENV },
	{ "--ftz", CLI_FLAG, NULL, NULL, "flush tiny results to zero", SHARED(text.ftz), CLI_ENV },
	{ "--daz", CLI_FLAG, NULL, NULL, "read subnormal inputs as zero", SHARED(text.daz), CLI_ENV },
	{ "--tininess", CLI_VALUE, "before|after", "after", "underflow detection before or after rounding",
	  SHARED(text.tininess), CLI_ENV },
	{ "--sr-bits", CLI_VALUE, "HEX|W:HEX|seed=N|W:seed=N", NULL,
	  "random bits for --round sr (needs --round sr); under an instruction, its random word in hex, seed=N, or "
	  "philox=SEED[:OFFSET[:THREAD[:ROUNDS]]]",
	  SHARED(text.sr_bits), CLI_ENV },
	{ "--profile", CLI_VALUE, "cuda|onnx-cast-19|onnx-cast-24|ml_dtypes|ocp", NULL,
	  "behave as that implementation (--round, --sat, --overflow override it)", SHARED(text.profile), CLI_ENV },
	{ "--pre-scale", CLI_VALUE, "CODE", NULL,
	  "divide each value by 2^(CODE - 127) before rounding, CODE an E8M0 scale 0..255 (255: every result NaN), "
	  "as AMD's v_cvt_scalef32_* do; any rounding", SHARED(text.pre_scale), CLI_SCALE },
	{ "--model", CLI_VALUE, "MODEL", NULL, "the accumulation model (see MODEL in fpref --help)", SHARED(model.model),
	  CLI_MODEL },
	{ "--block", CLI_VALUE, "N", "32", "products per block (generic, blocked)", SHARED(model.block), CLI_MODEL },
	{ "--frac", CLI_VALUE, "F", NULL, "fraction bits kept in a block (generic)", SHARED(model.frac), CLI_MODEL },
	{ "--floor", CLI_VALUE, "E|none", "none", "the exponent floor of a block (generic)", SHARED(model.floor),
	  CLI_MODEL },
	{ "--final", CLI_VALUE, "rtz|rne", "rtz", "the final rounding (generic)", SHARED(model.final), CLI_MODEL },
	{ "--promote", CLI_VALUE, "NC", NULL,
	  "tensor-core partial sums added to an FP32 accumulator every NC products", SHARED(model.promote), CLI_MODEL },
	{ "--order", CLI_VALUE, "cublaslt-splitk=S", NULL,
	  "cuBLASLt's split-K: slices of S products from zero, summed in FP32, C added last", SHARED(model.order),
	  CLI_MODEL },
	{ "--shape", CLI_VALUE, "SHAPE", NULL,
	  "the instruction a kernel chains (m16n8k8, m64n128k16, 32x32x4; a preset's ISA): blocks of its K where K is "
	  "below the preset's block", SHARED(model.shape), CLI_MODEL },
	{ "--traits", CLI_VALUE, "LIST", NULL,
	  "a generic model's conventions, of zero-positive, nan-ones, c-least-normal, product-inf, zero-c-aligns, zero-operand-aligns (docs/accumulation.md)",
	  SHARED(model.traits), CLI_MODEL },
	{ "--scale-a", CLI_VALUE, "SA.npy", NULL,
	  "block scales of A (M x K/E, E = --scale-every): uint8 patterns of --scale-format, or float values it holds "
	  "exactly; without it (and with --scale-b), ones",
	  SHARED(gemm_scales.a), CLI_GEMM_SCALES },
	{ "--scale-b", CLI_VALUE, "SB.npy", NULL, "block scales of B (K/E x N), as --scale-a", SHARED(gemm_scales.b),
	  CLI_GEMM_SCALES },
	{ "--scale-every", CLI_VALUE, "E", "32, or 16 for UE4M3",
	  "products per scale (a multiple of the model's block, or of its group: 16 for tcgen05-mxf4nvf4)",
	  SHARED(gemm_scales.every), CLI_GEMM_SCALES },
	{ "--scale-format", CLI_VALUE, "FMT", "float8_e8m0fnu",
	  "the scales' format: float8_e8m0fnu, or float8_e4m3fn read as UE4M3 (tcgen05-mxf4nvf4)",
	  SHARED(gemm_scales.format), CLI_GEMM_SCALES },
};

/* The row named name (the part before any '='), searched in c's own table
 * and then its groups; *shared tells which. */
static const struct cli_opt *find_row(const struct cli_command *c, const char *name, size_t len, bool *shared)
{
	for (size_t i = 0; i < c->nopts; i++)
		if (strlen(c->opts[i].name) == len && strncmp(c->opts[i].name, name, len) == 0) {
			*shared = false;
			return &c->opts[i];
		}
	for (size_t i = 0; i < CLI_NOPTS(shared_opts); i++)
		if ((shared_opts[i].tag & c->groups) && strlen(shared_opts[i].name) == len &&
		    strncmp(shared_opts[i].name, name, len) == 0) {
			*shared = true;
			return &shared_opts[i];
		}
	return NULL;
}

/* The vocabulary (docs/vocabulary.md): a format is --from/--to where a value
 * changes format and --...-format elsewhere; a file is --in-file/--out-file
 * (-i, -o), a folder --out-dir (-o).  The spellings it replaced are read
 * here, by subcommand, as their replacements, each saying so once on stderr;
 * a short form (one '-') is no old spelling and says nothing.  where: the
 * subcommands, '|'-separated, each "CMD" or "CMD ACTION" (ACTION: the word
 * right after CMD, as in probe gen), because the same old word meant a file
 * in one place and a format in another. */
struct cli_alias {
	const char *where, *old, *now;
};

static const struct cli_alias aliases[] = {
	{ "convert|quantize", "-i", "--in-file" },
	{ "convert|gemm|draw|probe gen", "-o", "--out-file" },
	{ "gen|sweep", "-o", "--out-dir" },
	{ "convert|quantize", "--in", "--in-file" },
	{ "convert|draw|probe gen", "--out", "--out-file" },
	{ "gemm", "--save", "--out-file" },
	{ "gen|sweep", "--out", "--out-dir" },
	{ "dot|gemm|verify-gemm|probe|draw", "--in", "--in-format" },
	{ "probe", "--inputs", "--in-format" },
	{ "dot|gemm|verify-gemm|probe infer|probe order", "--out", "--out-format" },
	{ "probe", "--output", "--out-format" },
	{ "dot|gemm|verify-gemm|probe", "--in-a", "--a-format" },
	{ "dot|gemm|verify-gemm|probe", "--in-b", "--b-format" },
	{ "op", "--fmt", "--format" },
	{ "gemm", "--source", "--source-format" },
	{ "convert", "--element", "--element-format" },
};

/* Whether c (doing action, NULL: none) is among where's subcommands. */
static bool alias_applies(const char *where, const struct cli_command *c, const char *action)
{
	size_t n = strlen(c->name);
	for (const char *p = where; *p;) {
		size_t w = strcspn(p, "|");
		if (w >= n && strncmp(p, c->name, n) == 0 &&
		    (w == n || (p[n] == ' ' && action && strlen(action) == w - n - 1 && strncmp(p + n + 1, action, w - n - 1) == 0)))
			return true;
		p += w + (p[w] == '|');
	}
	return false;
}

static const struct cli_alias *find_alias(const struct cli_command *c, const char *action, const char *name, size_t len)
{
	for (size_t i = 0; i < CLI_NOPTS(aliases); i++)
		if (strlen(aliases[i].old) == len && strncmp(aliases[i].old, name, len) == 0 &&
		    alias_applies(aliases[i].where, c, action))
			return &aliases[i];
	return NULL;
}

/* The action of a subcommand that has them: its first word, unless an option. */
static const char *action_of(int argc, char **argv)
{
	return argc > 0 && argv[0][0] != '-' ? argv[0] : NULL;
}

/* A row by its name, or by an old spelling or short form of it (*alias). */
static const struct cli_opt *find_opt(const struct cli_command *c, const char *action, const char *name, size_t len,
				      bool *shared, const struct cli_alias **alias)
{
	*alias = NULL;
	const struct cli_opt *r = find_row(c, name, len, shared);
	if (r)
		return r;
	*alias = find_alias(c, action, name, len);
	return *alias ? find_row(c, (*alias)->now, strlen((*alias)->now), shared) : NULL;
}

/* Whether alias a is c's (in any action): then scope holds "" or the
 * actions it is for, " (infer, order)". */
static bool alias_scope(const struct cli_command *c, const struct cli_alias *a, char *scope, size_t len)
{
	size_t n = strlen(c->name), used = 0;
	bool mine = false;
	scope[0] = '\0';
	for (const char *p = a->where; *p;) {
		size_t w = strcspn(p, "|");
		if (w >= n && strncmp(p, c->name, n) == 0 && (w == n || p[n] == ' ')) {
			mine = true;
			if (w == n) {
				scope[0] = '\0';
				return true;
			}
			int k = snprintf(scope + used, len - used, "%s%.*s", used ? ", " : " (", (int)(w - n - 1), p + n + 1);
			used += k > 0 && (size_t)k < len - used ? (size_t)k : 0;
		}
		p += w + (p[w] == '|');
	}
	if (used && used + 2 <= len)
		strcat(scope, ")");
	return mine;
}

/* A row's short form for c ("-o"), or NULL. */
static const char *short_of(const struct cli_command *c, const struct cli_opt *r)
{
	char scope[64];
	for (size_t i = 0; i < CLI_NOPTS(aliases); i++)
		if (aliases[i].old[1] != '-' && strcmp(aliases[i].now, r->name) == 0 &&
		    alias_scope(c, &aliases[i], scope, sizeof scope))
			return aliases[i].old;
	return NULL;
}

/* A row's name as help shows it: "-o, --out-file" where c has the short form. */
static void row_name(const struct cli_command *c, const struct cli_opt *r, char *buf, size_t len)
{
	const char *s = short_of(c, r);
	snprintf(buf, len, "%s%s%s", s ? s : "", s ? ", " : "", r->name);
}

static void note_old(const struct cli_command *c, const struct cli_alias *alias, bool *noted)
{
	/* stderr only, so that what an old command line printed on stdout stays byte for byte */
	if (alias && alias->old[1] == '-' && !noted[alias - aliases]) {
		noted[alias - aliases] = true;
		cli_fail(c->name, "note: %s is now %s (the old spelling still works; docs/vocabulary.md)", alias->old,
			 alias->now);
	}
}

const char *cli_option_value(const struct cli_command *c, const char *action, const char *name, int argc, char **argv,
			     int *i)
{
	const char *a = argv[*i], *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct cli_alias *alias = NULL;
	bool named = strlen(name) == len && strncmp(a, name, len) == 0;
	if (!named) {
		alias = find_alias(c, action, a, len);
		named = alias && strcmp(alias->now, name) == 0;
	}
	if (!named || (!eq && *i + 1 >= argc))
		return NULL;
	bool noted[CLI_NOPTS(aliases)] = { false };
	note_old(c, alias, noted);
	return eq ? eq + 1 : argv[++*i];
}

static bool is_positional(const char *a)
{
	return strcmp(a, "-") == 0 || looks_like_number(a);
}

static int add_positional(const struct cli_command *c, struct cli_options *o, const char *a)
{
	int max = c->max_positional < 0 || c->max_positional > CLI_MAX_POSITIONAL ? CLI_MAX_POSITIONAL
										     : c->max_positional;
	if (o->npositional == max) {
		if (max == CLI_MAX_POSITIONAL)
			cli_fail(c->name, "too many values (at most %d): '%s'", CLI_MAX_POSITIONAL, a);
		else
			cli_fail(c->name, "unexpected argument '%s' (usage: fpref %s %s)", a, c->name, c->synopsis);
		return CLI_EXIT_USAGE;
	}
	o->positional[o->npositional++] = a;
	return 0;
}

/* One of the words in choices ("a|b|c"), in any case: its index, or -1. */
static int choice(const char *text, const char *choices)
{
	size_t n = strlen(text);
	int k = 0;
	for (const char *p = choices; *p; k++) {
		size_t w = strcspn(p, "|");
		if (w == n && strncasecmp(p, text, n) == 0)
			return k;
		p += w + (p[w] == '|');
	}
	return -1;
}

/* The shared groups' text made into formats, environment and engine. */
/* A choice word in lower case, as the parsers of formats/ want it (--round
 * RNE is rne); false when it does not fit (then it is no choice). */
static bool lower_word(const char *text, char *low, size_t size)
{
	size_t n = strlen(text);
	if (n >= size)
		return false;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)text[i]);
	return true;
}

static int resolve_shared(const struct cli_command *c, struct cli_options *o)
{
	char err[1024];
	if ((o->have_to = o->text.to != NULL) && cli_parse_format(c->name, o->text.to, &o->to) != 0)
		return CLI_EXIT_USAGE;
	if ((o->have_from = o->text.from != NULL) && cli_parse_format(c->name, o->text.from, &o->from) != 0)
		return CLI_EXIT_USAGE;
	if (o->text.engine) {
		int k = choice(o->text.engine, "emu|ref");
		if (k < 0) {
			cli_fail(c->name, "unknown engine '%s' (choices: emu, the integer emulator; ref, the MPFR oracle)",
				 o->text.engine);
			return CLI_EXIT_USAGE;
		}
		o->engine = k == 0 ? CLI_ENGINE_EMU : CLI_ENGINE_REF;
	}
	if (o->text.round) {
		char low[16];
		int k = -2;
		if (lower_word(o->text.round, low, sizeof low) && fpref_env_parse_rounding(low, &o->env) != 0)
			/* perhaps a stochastic-rounding instruction, whose lanes depend on the formats */
			k = o->have_to ? fpref_env_sr_instruction(low, o->have_from ? &o->from : NULL, &o->to, &o->env, err,
								  sizeof err)
				       : fpref_env_sr_instruction(low, NULL, NULL, &o->env, err, sizeof err);
		else if (lower_word(o->text.round, low, sizeof low))
			k = 0;
		if (k == -1) {
			cli_fail(c->name, "--round %s: %s", o->text.round, err);
			return CLI_EXIT_USAGE;
		}
		if (k == -2) {
			cli_fail(c->name, "unknown rounding mode '%s' (choices: %s; instructions: %s)", o->text.round,
				 fpref_env_rounding_choices(), fpref_env_sr_instruction_choices());
			return CLI_EXIT_USAGE;
		}
		o->have_round = true;
	}
	if (o->text.overflow) {
		char low[16];
		if (!lower_word(o->text.overflow, low, sizeof low) || fpref_env_parse_overflow(low, &o->env) != 0) {
			cli_fail(c->name, "unknown overflow policy '%s' (choices: %s)", o->text.overflow,
				 fpref_env_overflow_choices());
			return CLI_EXIT_USAGE;
		}
		if (o->text.sat && o->env.overflow != FPREF_OVERFLOW_SAT) {
			cli_fail(c->name, "--sat and '--overflow %s' contradict each other", o->text.overflow);
			return CLI_EXIT_USAGE;
		}
		o->have_overflow = true;
	}
	if (o->text.sat) {
		o->env.overflow = FPREF_OVERFLOW_SAT;
		o->have_overflow = true;
	}
	o->env.ftz = o->text.ftz;
	o->env.daz = o->text.daz;
	if (o->text.tininess) {
		int k = choice(o->text.tininess, "before|after");
		if (k < 0) {
			cli_fail(c->name, "unknown tininess '%s' (choices: before, after)", o->text.tininess);
			return CLI_EXIT_USAGE;
		}
		o->env.tininess = k == 0 ? FPREF_TININESS_BEFORE : FPREF_TININESS_AFTER;
	}
	if (o->text.sr_bits) {
		if (o->env.rounding != FPREF_SR) {
			cli_fail(c->name, "--sr-bits '%s' needs --round sr (no other mode reads random bits)", o->text.sr_bits);
			return CLI_EXIT_USAGE;
		}
		if (fpref_env_parse_sr(o->text.sr_bits, &o->env, err, sizeof err) != 0) {
			cli_fail(c->name, "%s", err);
			return CLI_EXIT_USAGE;
		}
	}
	if (o->text.pre_scale && fpref_env_parse_pre_scale(o->text.pre_scale, &o->env, err, sizeof err) != 0) {
		cli_fail(c->name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	if (o->text.profile) {
		struct fpref_env probe;
		fpref_env_default(&probe);
		if (fpref_profile_apply(o->text.profile, &o->to, &probe) != 0) {
			cli_fail(c->name, "unknown profile '%s' (choices: %s)", o->text.profile, fpref_profile_choices());
			return CLI_EXIT_USAGE;
		}
		o->profile = o->text.profile;
	}
	return 0;
}

static int store(const struct cli_command *c, const struct cli_opt *r, void *base, const char *value)
{
	char *p = (char *)base + r->offset;
	if (r->kind == CLI_FLAG) {
		*(bool *)(void *)p = true;
	} else if (r->kind == CLI_VALUE) {
		*(const char **)(void *)p = value;
	} else {
		struct cli_multi *m = (struct cli_multi *)(void *)p;
		if (m->n == CLI_MULTI_MAX) {
			cli_fail(c->name, "at most %d %s options: '%s'", CLI_MULTI_MAX, r->name, value);
			return CLI_EXIT_USAGE;
		}
		m->v[m->n++] = value;
	}
	return 0;
}

static int parse_words(const struct cli_command *c, int argc, char **argv, struct cli_options *o, void *own,
		       bool *seen_own, bool *seen_shared, bool *noted)
{
	const char *action = action_of(argc, argv);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				if (add_positional(c, o, argv[i]))
					return CLI_EXIT_USAGE;
			break;
		}
		if (is_positional(a)) {
			if (add_positional(c, o, a))
				return CLI_EXIT_USAGE;
			continue;
		}
		/* --name=value as well as --name value */
		const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
		bool shared = false;
		const struct cli_alias *alias;
		const struct cli_opt *r = find_opt(c, action, a, eq ? (size_t)(eq - a) : strlen(a), &shared, &alias);
		if (!r) {
			char scope[64];
			for (size_t k = 0; k < CLI_NOPTS(aliases); k++)
				if (strlen(aliases[k].old) == (eq ? (size_t)(eq - a) : strlen(a)) &&
				    strncmp(aliases[k].old, a, strlen(aliases[k].old)) == 0 &&
				    alias_scope(c, &aliases[k], scope, sizeof scope) && scope[0]) {
					cli_fail(c->name, "'%s' is an old spelling whose meaning depends on the action: write the "
						 "action first (fpref %s ACTION ...), or the new spelling (see fpref %s --help)",
						 a, c->name, c->name);
					return CLI_EXIT_USAGE;
				}
			cli_fail(c->name, "unknown option '%s' (see fpref %s --help)", a, c->name);
			return CLI_EXIT_USAGE;
		}
		note_old(c, alias, noted);
		const char *value = NULL;
		if (r->kind == CLI_FLAG && eq) {
			cli_fail(c->name, "option %s takes no value: '%s'", r->name, a);
			return CLI_EXIT_USAGE;
		}
		if (r->kind != CLI_FLAG) {
			if (eq)
				value = eq + 1;
			else if (i + 1 < argc)
				value = argv[++i];
			else {
				cli_fail(c->name, "option %s needs a value (%s)", a, r->arg);
				return CLI_EXIT_USAGE;
			}
		}
		/* A second --in (or --sat) would silently replace the first: a user
		 * who wrote two formats meant something fpref cannot guess.  Asked
		 * of what was written, not of the stored value: a command may fill
		 * its defaults in before parsing. */
		size_t at = (size_t)(r - (shared ? shared_opts : c->opts));
		bool *seen = shared ? &seen_shared[at] : &seen_own[at];
		if (*seen && r->kind == CLI_FLAG) {
			cli_fail(c->name, "option %s given twice", r->name);
			return CLI_EXIT_USAGE;
		}
		if (*seen && r->kind == CLI_VALUE) {
			const char *first = *(const char **)(void *)((char *)(shared ? (void *)o : own) + r->offset);
			cli_fail(c->name, "option %s given twice ('%s' and '%s'): give it once", r->name, first, value);
			return CLI_EXIT_USAGE;
		}
		*seen = true;
		if (store(c, r, shared ? (void *)o : own, value))
			return CLI_EXIT_USAGE;
	}
	return 0;
}

int cli_parse_command(const struct cli_command *c, int argc, char **argv, struct cli_options *o, void *own)
{
	memset(o, 0, sizeof *o);
	fpref_env_default(&o->env);
	bool seen_shared[CLI_NOPTS(shared_opts)] = { false };
	bool noted[CLI_NOPTS(aliases)] = { false };
	bool *seen_own = calloc(c->nopts ? c->nopts : 1, sizeof *seen_own);
	if (!seen_own) {
		cli_fail(c->name, "out of memory");
		return CLI_EXIT_USAGE;
	}
	int r = parse_words(c, argc, argv, o, own, seen_own, seen_shared, noted);
	free(seen_own);
	return r ? r : resolve_shared(c, o);
}

int cli_check_tags(const struct cli_command *c, const void *own, unsigned tag, const char *what)
{
	for (size_t i = 0; i < c->nopts; i++) {
		const struct cli_opt *r = &c->opts[i];
		const char *p = (const char *)own + r->offset;
		bool given = r->kind == CLI_FLAG    ? *(const bool *)(const void *)p
			     : r->kind == CLI_VALUE ? *(const char *const *)(const void *)p != NULL
						    : ((const struct cli_multi *)(const void *)p)->n > 0;
		if (given && r->tag && !(r->tag & tag)) {
			cli_fail(c->name, "%s does not apply to %s", r->name, what);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
}

bool cli_help_wanted(const struct cli_command *c, int argc, char **argv)
{
	const char *action = action_of(argc, argv);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			return false;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return true;
		bool shared;
		const struct cli_alias *alias;
		const struct cli_opt *r =
			is_positional(a) || strchr(a, '=') ? NULL : find_opt(c, action, a, strlen(a), &shared, &alias);
		if (r && r->kind != CLI_FLAG)
			i++; /* its value, whatever it says */
	}
	return false;
}

/* Each row c accepts: its own, then its groups', in table order. */
static const struct cli_opt *nth_opt(const struct cli_command *c, size_t n)
{
	if (n < c->nopts)
		return &c->opts[n];
	n -= c->nopts;
	for (size_t i = 0; i < CLI_NOPTS(shared_opts); i++)
		if ((shared_opts[i].tag & c->groups) && n-- == 0)
			return &shared_opts[i];
	return NULL;
}

void cli_print_options(FILE *out, const struct cli_command *c)
{
	const struct cli_opt *r;
	for (size_t n = 0; (r = nth_opt(c, n)); n++)
		fprintf(out, "%s%s%s\n", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
}

void cli_print_group(FILE *out, unsigned group, const char *label)
{
	fprintf(out, "%s\n", label);
	for (size_t i = 0; i < CLI_NOPTS(shared_opts); i++) {
		const struct cli_opt *r = &shared_opts[i];
		if (!(r->tag & group))
			continue;
		char left[96];
		snprintf(left, sizeof left, "%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
		if (strlen(left) > 30)
			fprintf(out, "       %s\n       %-30s %s", left, "", r->help);
		else
			fprintf(out, "       %-30s %s", left, r->help);
		if (r->def)
			fprintf(out, " (default: %s)", r->def);
		fputc('\n', out);
	}
}

void cli_print_option_names(FILE *out, const struct cli_command *c)
{
	int col = fprintf(out, "      options:");
	const struct cli_opt *r;
	for (size_t n = 0; (r = nth_opt(c, n)); n++) {
		if (col + 1 + (int)strlen(r->name) > 100)
			col = fprintf(out, "\n              ");
		col += fprintf(out, " %s", r->name);
	}
	fprintf(out, "%s--help\n", col + 7 > 100 ? "\n               " : " ");
}

void cli_print_help(FILE *out, const struct cli_command *c)
{
	fprintf(out, "usage: fpref %s %s\n\n%s\n", c->name, c->synopsis, c->summary);
	if (c->details)
		fprintf(out, "\n%s", c->details);
	fputs("\noptions:\n", out);
	const struct cli_opt *r;
	for (size_t n = 0; (r = nth_opt(c, n)); n++) {
		char left[96], name[48];
		row_name(c, r, name, sizeof name);
		snprintf(left, sizeof left, "%s%s%s", name, r->arg ? " " : "", r->arg ? r->arg : "");
		if (strlen(left) > 26)
			fprintf(out, "  %s\n  %-26s ", left, "");
		else
			fprintf(out, "  %-26s ", left);
		fprintf(out, "%s", r->help);
		if (r->def)
			fprintf(out, " (default: %s)", r->def);
		fputc('\n', out);
	}
	fputs("  -h, --help                 this help\n", out);
	bool any = false;
	for (size_t i = 0; i < CLI_NOPTS(aliases); i++) {
		char scope[64], left[96];
		if (aliases[i].old[1] != '-' || !alias_scope(c, &aliases[i], scope, sizeof scope))
			continue;
		if (!any)
			fputs("\nold spellings (still read, each with a note on stderr):\n", out);
		any = true;
		snprintf(left, sizeof left, "%s%s", aliases[i].old, scope);
		fprintf(out, "  %-26s %s\n", left, aliases[i].now);
	}
	fputs("\nexamples:\n", out);
	for (int k = 0; k < 2; k++)
		fprintf(out, "  %s\n", c->examples[k]);
}

/* Text for roff: a leading '.' or '\'' and every backslash escaped, '-' as \-. */
void cli_man_text(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		if ((p == s || p[-1] == '\n') && (*p == '.' || *p == '\''))
			fputs("\\&", out);
		if (*p == '\\')
			fputs("\\e", out);
		else if (*p == '-')
			fputs("\\-", out);
		else
			fputc(*p, out);
	}
}

void cli_print_man(FILE *out, const struct cli_command *c)
{
	fputs(".SS \"", out);
	cli_man_text(out, c->name);
	fputs("\"\n\\fBfpref ", out);
	cli_man_text(out, c->name);
	fputs("\\fR ", out);
	cli_man_text(out, c->synopsis);
	fputs("\n.PP\n", out);
	cli_man_text(out, c->summary);
	fputc('\n', out);
	if (c->details) {
		fputs(".PP\n", out);
		cli_man_text(out, c->details);
	}
	const struct cli_opt *r;
	for (size_t n = 0; (r = nth_opt(c, n)); n++) {
		const char *sh = short_of(c, r);
		fputs(".TP\n", out);
		if (sh) { /* the short form first, each in bold */
			fputs("\\fB", out);
			cli_man_text(out, sh);
			fputs("\\fR, ", out);
		}
		fputs("\\fB", out);
		cli_man_text(out, r->name);
		fputs("\\fR", out);
		if (r->arg) {
			fputs(" \\fI", out);
			cli_man_text(out, r->arg);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		cli_man_text(out, r->help);
		if (r->def) {
			fputs(" (default: ", out);
			cli_man_text(out, r->def);
			fputc(')', out);
		}
		fputc('\n', out);
	}
	bool any = false;
	for (size_t i = 0; i < CLI_NOPTS(aliases); i++) {
		char scope[64];
		if (aliases[i].old[1] != '-' || !alias_scope(c, &aliases[i], scope, sizeof scope))
			continue;
		fputs(any ? ", " : ".PP\nOld spellings, still read (each with a note on stderr): ", out);
		any = true;
		cli_man_text(out, aliases[i].old);
		cli_man_text(out, scope);
		fputs(" is ", out);
		cli_man_text(out, aliases[i].now);
	}
	if (any)
		fputs(".\n", out);
	fputs(".PP\nExamples:\n.RS\n.nf\n", out);
	for (int k = 0; k < 2; k++) {
		cli_man_text(out, c->examples[k]);
		fputc('\n', out);
	}
	fputs(".fi\n.RE\n", out);
}

struct fpref_env cli_target_env(const struct cli_options *o, const struct fpref_format *target)
{
	struct fpref_env env = o->env;
	if (o->profile) {
		fpref_profile_apply_conversion(o->profile, o->have_from ? &o->from : NULL, target, &env);
		if (o->have_round)
			env.rounding = o->env.rounding;
		if (o->have_overflow || o->env.sr_lanes) /* an instruction's overflow and NaN are its own */
			env.overflow = o->env.overflow;
		if (o->env.sr_lanes)
			env.nan_style = o->env.nan_style;
	}
	return env;
}

struct cli_json_num cli_json_num(double x)
{
	struct cli_json_num n;
	if (isfinite(x))
		snprintf(n.text, sizeof n.text, "%.17g", x);
	else
		snprintf(n.text, sizeof n.text, "null");
	return n;
}

void cli_json_string(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

FILE *cli_open_input(const char *cmd, const char *path, int *status)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	const char *why = !f ? strerror(errno) : fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode) ? "is a directory" : NULL;
	if (!why)
		return f;
	cli_fail(cmd, "%s: %s", path, why); /* fopen takes a directory, and reading it fails later as EISDIR */
	if (f)
		fclose(f);
	*status = CLI_EXIT_USAGE;
	return NULL;
}

struct cli_json_num cli_text_num(double x, int digits)
{
	struct cli_json_num n = { { 0 } };
	fpref_golden_num_text(x, digits, n.text, sizeof n.text);
	return n;
}
