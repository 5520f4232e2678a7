/* Shared command-line parsing for the fpref subcommands: options, formats,
 * environments, and error reporting (exit status 2 for bad input). */
#ifndef FPREF_CLI_H
#define FPREF_CLI_H

#include <stdio.h>
#include "fpref.h"

/* The option groups a subcommand takes besides its own (bits of
 * cli_command.groups; the rows live in cli.c). */
enum cli_group {
	CLI_TO = 1,     /* --to FMT */
	CLI_FROM = 2,   /* --from FMT */
	CLI_ENV = 4,    /* --round --sat --overflow --ftz --daz --tininess --sr-bits --profile */
	CLI_JSON = 8,   /* --json */
	CLI_ENGINE = 16,
	CLI_FMT = 32,   /* --format FMT, stored as the target */
	CLI_MODEL = 64, /* --model --block --frac --floor --final --promote --order --shape --traits */
	CLI_SCALE = 128, /* --pre-scale CODE: a conversion's scale step */
	CLI_GEMM_SCALES = 256 /* --scale-a SA.npy --scale-b SB.npy --scale-every E --scale-format FMT */
};

enum cli_engine { CLI_ENGINE_EMU, CLI_ENGINE_REF };

#define CLI_MAX_POSITIONAL 256
#define CLI_MULTI_MAX 16

/* What an option row stores: a flag (bool), its value (const char *), or
 * every value of a repeatable option (struct cli_multi). */
enum cli_kind { CLI_FLAG, CLI_VALUE, CLI_MULTI };

struct cli_multi {
	const char *v[CLI_MULTI_MAX];
	int n;
};

/* One row of an option table.  The parser only stores; the subcommand
 * reads the stored text, so each option's meaning is written once. */
struct cli_opt {
	const char *name;  /* "--to" */
	enum cli_kind kind;
	const char *arg;   /* the value's name in the help ("FMT"); NULL for a flag */
	const char *def;   /* the default, as the help shows it; NULL: none */
	const char *help;
	size_t offset;     /* where it is stored in the subcommand's own struct */
	unsigned tag;      /* the subcommand's own use (the scalers or actions it belongs to) */
};

/* A subcommand: its name, synopsis, options and examples, from which the
 * help, the man page, the completion and the check of docs/command.md are made. */
struct cli_command {
	const char *name;
	const char *synopsis;  /* after "fpref NAME " */
	const char *summary;   /* one line */
	const char *details;   /* more paragraphs for --help, or NULL */
	unsigned groups;       /* enum cli_group bits */
	const struct cli_opt *opts;
	size_t nopts;
	int max_positional;    /* -1: any number */
	const char *examples[2];
	int (*run)(int argc, char **argv);
};

#define CLI_NOPTS(t) (sizeof(t) / sizeof(t)[0])

struct cli_model_text {
	const char *model, *block, *frac, *floor, *final, *promote, *order, *shape, *traits;
};

/* A GEMM's block scales as given (NULL: not given). */
struct cli_gemm_scale_text {
	const char *a, *b, *every, *format;
};

struct cli_options {
	struct fpref_env env;
	struct fpref_format to, from;
	bool have_to, have_from, json;
	enum cli_engine engine;
	const char *profile;            /* --profile NAME, applied by cli_target_env */
	bool have_round, have_overflow; /* given explicitly: they override the profile */
	const char *positional[CLI_MAX_POSITIONAL];
	int npositional;
	/* the shared groups' text, as given (NULL: not given) */
	struct {
		const char *to, *from, *engine, *round, *overflow, *tininess, *sr_bits, *profile, *pre_scale;
		bool sat, ftz, daz;
	} text;
	struct cli_model_text model;
	struct cli_gemm_scale_text gemm_scales;
};

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* Parse argv (after the subcommand name) by c's table and groups: the
 * shared groups into o (formats, environment and engine resolved), the
 * command's own options into own.  Returns 0, or prints a message naming
 * the subcommand and the bad token and returns CLI_EXIT_USAGE. */
int cli_parse_command(const struct cli_command *c, int argc, char **argv, struct cli_options *o, void *own);
/* Whether argv[*i] is option name of c doing action (NULL: none), as
 * spelled or by an old spelling (said on stderr), given a value: the value,
 * *i moved past it; else NULL.  For a command that passes most of its words
 * on (fpref draw gemm). */
const char *cli_option_value(const struct cli_command *c, const char *action, const char *name, int argc, char **argv,
			     int *i);
/* Each of c's own options given in own whose tag (nonzero) lacks tag:
 * a message "OPT does not apply to WHAT" and CLI_EXIT_USAGE; else 0. */
int cli_check_tags(const struct cli_command *c, const void *own, unsigned tag, const char *what);
/* A message naming the subcommand: "fpref CMD: ..." (cmd NULL: "fpref: ...") */
void cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether argv asks for help (--help or -h as an option, not a value):
 * then the help is printed on stdout. */
bool cli_help_wanted(const struct cli_command *c, int argc, char **argv);
/* The help of one subcommand (usage, options with defaults, examples). */
void cli_print_help(FILE *out, const struct cli_command *c);
/* The man page's section for one subcommand (roff). */
void cli_print_man(FILE *out, const struct cli_command *c);
/* A shared group's rows under a label, for fpref --help's notation. */
void cli_print_group(FILE *out, unsigned group, const char *label);
/* Every option's name on indented lines, for fpref --help. */
void cli_print_option_names(FILE *out, const struct cli_command *c);
/* Text for roff: a leading '.' or '\'' escaped, '-' as \-, '\\' as \e. */
void cli_man_text(FILE *out, const char *s);
/* Every option c accepts, one per line. */
void cli_print_options(FILE *out, const struct cli_command *c);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_parse_format(const char *cmd, const char *text, struct fpref_format *f);
/* The formats of A and B from --in (both) or --in-a and --in-b (each; one
 * without the other, or either with --in, is refused).  0, or
 * CLI_EXIT_USAGE after a message. */
int cli_parse_operands(const char *cmd, const char *in, const char *in_a, const char *in_b, struct fpref_format *a,
		       struct fpref_format *b);
/* The environment for a target format: the profile's, then the explicit
 * --round and --sat/--overflow on top. */
struct fpref_env cli_target_env(const struct cli_options *o, const struct fpref_format *target);
/* Hex digits of a pattern in the width of f's container, upper case, no 0x. */
void cli_hex(const struct fpref_format *f, uint64_t bits, char *buf, size_t len);
/* Parse a bit pattern of f written in hex, with or without 0x.  0 or -1 with a message in err. */
int cli_parse_bits(const struct fpref_format *f, const char *text, uint64_t *bits, char *err, size_t errlen);
/* Reading TestFloat-style batch lines from a stream. */
struct cli_lines {
	FILE *in;
	const char *name; /* the file, for messages; NULL: standard input */
	const char *cmd;  /* the subcommand, for messages */
	char *line;
	size_t cap;
	unsigned long lineno;
	bool keep_going;        /* a batch filter: a bad line is rejected and reading goes on */
	unsigned long lines;    /* non-blank lines read */
	unsigned long rejected; /* lines rejected with a message */
	size_t max_bytes;       /* a line's most bytes; 0: CLI_LINE_MAX_BYTES (fpref dot --model tree: more) */
};

#define CLI_LINE_MAX_BYTES 4096

/* The next non-blank line split into at most max tokens: returns how many
 * (> 0), 0 at the end of the input, or -1 after reporting a line that is
 * too long, holds a NUL byte, or cannot be read (*status is then set).
 * With keep_going a too long or NUL line is rejected (status 2) and the
 * next line read instead (tools/batch.c). */
int cli_next_tokens(struct cli_lines *r, char **tokens, int max, int *status);
/* "fpref CMD: line N: message" (or "FILE:N: message") on stderr, and one more rejected. */
void cli_line_reject(struct cli_lines *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The end of a batch: with rejected lines, "N lines, K rejected" on stderr
 * and status 2 unless it is already worse. */
int cli_lines_finish(struct cli_lines *r, int status);
void cli_lines_free(struct cli_lines *r);
/* A file to read lines from, or NULL after a
 * message naming it (missing, unreadable, a directory) with *status set
 * to CLI_EXIT_USAGE. */
FILE *cli_open_input(const char *cmd, const char *path, int *status);

/* A suite by path, or by name among $FPREF_SUITES, the source tree's and
 * the installed suites: 0 and its path, or -1. */
int cli_find_suite(const char *name, char *path, size_t len);
/* --jobs N (1..256; NULL: 1), one thread where MPFR is not thread-safe (said
 * on stderr).  0, or -1 after a message. */
int cli_parse_jobs(const char *cmd, const char *text, unsigned *threads);
/* --threads N (1..256; NULL: every online core) for the emulator's bulk
 * work, which is the same bits on any number.  0, or -1 after a message. */
int cli_parse_threads(const char *cmd, const char *text, unsigned *threads);
/* Print a string from the library and free it. */
void cli_put(FILE *out, char *s);
/* An integer format in its own terms (fpref_format_int_range): "two's
 * complement integer of 8 bits, k -128..127, value k (step 1), range
 * -128..127[, symmetric: ...]", for table and explain. */
void cli_put_int_range(FILE *out, const struct fpref_format *f);
/* A code's exact value as a decimal. */
void cli_put_code_value(FILE *out, const struct fpref_format *f, uint64_t code);
/* A number for JSON, which has no inf or NaN: "%.17g", or "null" where x is
 * not finite.  printf("%s", cli_json_num(x).text) */
struct cli_json_num {
	char text[32];
};
struct cli_json_num cli_json_num(double x);
/* A string for JSON on stdout: quoted, with '"', '\\' and control
 * characters escaped. */
void cli_json_string(const char *s);
/* A number for text: "%.*g" with digits, or "n/a" where x is not finite
 * (a ratio of zeros, say), never "-nan". */
struct cli_json_num cli_text_num(double x, int digits);

/* The accumulation model of dot, gemm and verify-gemm (tools/model.c):
 * the options checked against the formats of A and B (a preset takes the
 * pairs its rows list, fpref_tc_pair_ok; the plain orders and exact any); the library computes it
 * (fpref_golden_model_dot, fpref_golden_gemm). */
int cli_model_resolve(const char *cmd, const struct cli_model_text *t, const struct fpref_format *in_a,
		      const struct fpref_format *in_b, const struct fpref_format *out, struct fpref_accum_model *m);
/* The block scales of a GEMM (tools/gemm_scales.c): checked against the
 * model before any file is read (wanted false when neither --scale-a nor
 * --scale-b is given), then SA (M x K/every) and SB (K/every x N) loaded
 * from their files, ones where a file is not given. */
struct cli_gemm_scales {
	bool wanted;
	struct fpref_format format;
	size_t every;
	uint64_t *a, *b;
};
int cli_gemm_scales_check(const char *cmd, const struct cli_gemm_scale_text *t, const struct fpref_accum_model *m,
			  const struct fpref_format *in_a, const struct fpref_format *in_b, const struct fpref_format *out,
			  struct cli_gemm_scales *s);
int cli_gemm_scales_load(const char *cmd, const struct cli_gemm_scale_text *t, size_t M, size_t K, size_t N,
			 struct cli_gemm_scales *s);
void cli_gemm_scales_free(struct cli_gemm_scales *s);
struct fpref_tc_gemm_scales cli_gemm_scales_view(const struct cli_gemm_scales *s);


/* Arrays (tools/arrays.c).  Convert n patterns in place (env NULL: round
 * to nearest even); how many were inexact. */
size_t cli_convert_values(const struct fpref_format *from, uint64_t *bits, size_t n, const struct fpref_format *to,
			  const struct fpref_env *env);
/* 0, or -1 after a message naming the first element that is not a pattern of f. */
int cli_check_patterns(const char *cmd, const char *path, const struct fpref_format *f, const uint64_t *bits, size_t n);
/* A 2-D .npy matrix as patterns of f: float16/32/64 values (bfloat16 as
 * V2), or integer/void items of f's width as its patterns.  Values f does
 * not hold exactly are refused, the first named by index and value
 * ("B[3,7] = 1024 is not a float8_e4m3fn value"), to_round (NULL: none)
 * saying how the command rounds them; with inexact (the user asked for
 * rounding) they are rounded to f, nearest even, and counted there.
 * rows, cols: 0, or the shape it must have.  0, or an exit status after a
 * message. */
struct cli_matrix {
	uint64_t *bits;
	size_t rows, cols;
	bool values; /* the file held float values (rounded to f), not patterns */
};
int cli_load_matrix(const char *cmd, const char *path, const char *what, const struct fpref_format *f, size_t rows,
		    size_t cols, struct cli_matrix *m, size_t *inexact, const char *to_round);
/* Patterns of f written as .npy (float16/32/64 as NumPy floats, others as
 * unsigned codes).  0, or CLI_EXIT_FAIL after a message. */
int cli_save_patterns(const char *cmd, const char *path, const struct fpref_format *f, const uint64_t *bits,
		      const size_t *shape, int ndim);
/* Whether a file can be written at path (its folder takes new files, it is
 * not a folder), before any work is done: 0, or CLI_EXIT_FAIL after a message
 * (an unwritable output, as docs/command.md's exit statuses say). */
int cli_check_writable(const char *cmd, const char *path);
/* Progress of a long command on stderr, only when stderr is a terminal and
 * the work is large (wanted). */
struct cli_progress {
	const char *what;
	bool wanted, shown;
};
void cli_progress(void *ctx, size_t done, size_t total); /* a fpref_gemm_progress */
/* cli_progress with an estimate of the time left (gemm, verify-gemm):
 * "what done of total, about N s left" at most every 0.2 s (1 s, a line
 * each, when stderr is not a terminal and forced, as --progress asks). */
struct cli_progress_timed {
	struct cli_progress base;
	bool forced;
	double start, last; /* the first call's time (its count in at), the last shown */
	size_t at;
};
void cli_progress_timed(void *ctx, size_t done, size_t total); /* a fpref_gemm_progress */
void cli_progress_done(struct cli_progress *p);
/* --tolerance N ulp | X rel (tools/cmd_verify.c). */
int cli_parse_tolerance(const char *cmd, const char *text, struct fpref_verify_options *o);

int cmd_formats(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_op(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_dot(int argc, char **argv);
int cmd_gemm(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_mutants(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_lossscale(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
int cmd_verify_gemm(int argc, char **argv);
int cmd_draw(int argc, char **argv);

extern const struct cli_command cli_cmd_formats;
extern const struct cli_command cli_cmd_convert;
extern const struct cli_command cli_cmd_explain;
extern const struct cli_command cli_cmd_table;
extern const struct cli_command cli_cmd_op;
extern const struct cli_command cli_cmd_bench;
extern const struct cli_command cli_cmd_dot;
extern const struct cli_command cli_cmd_gemm;
extern const struct cli_command cli_cmd_gen;
extern const struct cli_command cli_cmd_sweep;
extern const struct cli_command cli_cmd_mutants;
extern const struct cli_command cli_cmd_verify;
extern const struct cli_command cli_cmd_lossscale;
extern const struct cli_command cli_cmd_policy;
extern const struct cli_command cli_cmd_lab;
extern const struct cli_command cli_cmd_probe;
extern const struct cli_command cli_cmd_quantize;
extern const struct cli_command cli_cmd_verify_gemm;
extern const struct cli_command cli_cmd_draw;

#endif
