/* fpref — golden vectors: suites as data, files with a header and a
 * closing SHA-256, generation checked by both engines, and verification of
 * anyone's results against them. */
#ifndef FPREF_GOLDEN_H
#define FPREF_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fpref_formats.h"
#include "fpref_formats_e8m0.h"
#include "fpref_formats_env.h"
#include "fpref_formats_op.h"
#include "fpref_formats_tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the edge-case generator, for the test driver as for the suites ---- */
/* The values where formats have their edges (zeros, the subnormal range,
 * the least normal, one and its neighbours, the largest finite, inf, NaNs,
 * a signaling NaN and all ones where IEEE; both signs), at most max of
 * them into out: their count (96 hold every format's). */
size_t fpref_golden_edge_values(const struct fpref_format *f, uint64_t *out, size_t max);
/* NaNs of an IEEE format with eleven payloads, quiet and signaling, both
 * signs, at most max into out: their count (22 at most; 0 for a format
 * without IEEE NaNs). */
size_t fpref_golden_nan_patterns(const struct fpref_format *f, uint64_t *out, size_t max);
/* The structured operand sets of op on f that the edge generator of an op
 * job writes (its file holds them, then the edge values' pairs): for the
 * formats of 8 bits or fewer the a that put a b at each side of max and of
 * the ties at the top of the subnormal range (fma: every product of the
 * formats of 6 bits or fewer); NaNs of every payload in every position;
 * subnormal operands; exact zeros of both signs; results in the overflow
 * band; exact midpoints and fma sums that double rounding loses; results
 * at the top of the subnormal range; orderings of negatives and zeros.
 * Each operand set, valid operands only, goes to emit(ctx, in), in[0] to
 * in[arity - 1] set (the rest 0), in the order of the file, drawn from
 * seed (the suite's); none for a format with padding bits. */
typedef void fpref_golden_emit_fn(void *ctx, const uint64_t in[3]);
void fpref_golden_op_structured(enum fpref_op op, const struct fpref_format *f, uint64_t seed,
				fpref_golden_emit_fn *emit, void *ctx);

/* ---- SHA-256 (FIPS 180-4) ---- */
struct fpref_sha256 {
	uint32_t h[8];
	uint64_t length;        /* bytes hashed so far */
	unsigned char block[64];
	size_t used;
};
void fpref_golden_sha256_init(struct fpref_sha256 *s);
void fpref_golden_sha256_update(struct fpref_sha256 *s, const void *data, size_t n);
/* The digest as 64 lower-case hex digits and a NUL. */
void fpref_golden_sha256_hex(struct fpref_sha256 *s, char hex[65]);

/* Format 2: the closing SHA-256 covers the header and the body, and the
 * header carries each format's descriptor and the flags legend.  Format 1
 * files (the checksum of the body alone) are still read. */
#define FPREF_GOLDEN_FORMAT_VERSION 2

/* ---- suites ----
 * A suite file is lines of words ('#' starts a comment):
 *   suite NAME               (or "campaign NAME": a sweep, fpref_golden_sweep.h)
 *   seed N
 *   chunk N                  (campaigns: 2^N inputs per chunk)
 *   mutant NAME              (campaigns: the emulator runs that mutant, a test of the sweep)
 *   convert FROMS TOS ENVS GENERATOR
 *   op OPS FORMATS ENVS GENERATOR
 *   dot GPUS INPUTS OUTPUTS GENERATOR  (an input A*B: A and B of two formats, as
 *                            float8_e5m2*float8_e4m3fn, where the preset takes the pair)
 *   scale RULES ELEMENTS exhaustive  (campaigns: fpref_formats_e8m0.h's rules, or "all",
 *                            each from FP32 and through BF16; ELEMENTS for the amax rules)
 * Lists are comma-separated: format names, or the groups "all" (the
 * catalogue) and "narrow" (its formats of 8 bits or fewer); ops, or "all".
 * A format with options, whose spelling has commas of its own, goes whole
 * in brackets: "op add [e5m3,subnormals=off],float16 rne edge".  A line
 * holds at most 2046 characters; a longer one is refused (file:line), not
 * split.
 * An ENV is '+'-joined: a rounding mode, sat, ftz, daz, before (tininess),
 * or a profile name (cuda, onnx-cast-19, ...) applied for the target.
 * GENERATOR: exhaustive, edge, random:N, edge+random:N; for dot,
 * random:N:K, probe:K (the probe inputs of golden/fpref_golden_probe.h), or
 * cases:K, the cases written out on the "case" lines that follow it (the
 * dot line then names one model, one input and one output):
 *   case LABEL WORD... [| NOTES]
 * each WORD a0=HEX (a_1's pattern; products counted from 0, as issue 37's
 * examples are), a0..a7=HEX (a run of them), the same with b, or c=HEX;
 * terms not written are +0; the words after '|' are notes for other
 * readers (kernels/settle-report), not read here.  Each line expands to one job (one file) per combination. */
struct fpref_mutant;
enum fpref_golden_kind {
	FPREF_GOLDEN_CONVERT,
	FPREF_GOLDEN_OP,
	FPREF_GOLDEN_DOT,
	FPREF_GOLDEN_E8M0, /* campaigns only: an E8M0 scale rule on every FP32 pattern (line "scale RULES ELEMENTS GEN": E8M0 scale rules) */
};

struct fpref_golden_job {
	enum fpref_golden_kind kind;
	enum fpref_op op;            /* OP */
	struct fpref_format in, out; /* CONVERT: from, to; OP: the format twice; DOT: A's (and B's) inputs, output */
	struct fpref_format in_b;    /* DOT: B's inputs (the same as in but for a pair A*B) */
	struct fpref_env env;        /* resolved for the target */
	char env_text[96];           /* as the suite wrote it */
	struct fpref_tc_model model; /* DOT */
	struct fpref_e8m0_rule e8m0; /* E8M0: the rule; `out` its MX element where it reads one, else E8M0 */
	bool exhaustive, edge;
	unsigned long random_count;
	unsigned K;                  /* DOT: products per case */
	bool probe;                  /* DOT: the probe inputs instead of random ones */
	bool cases;                  /* DOT: the suite's "case" lines instead of random ones */
	uint64_t *case_in;           /* ... ncases of them, 2 K + 1 patterns each (a, b, c); owned by the suite */
	size_t ncases;
	uint64_t seed;
	char path[256];              /* relative to the output folder: "add/float8_e4m3fn.rne.txt" */
	unsigned omit;               /* edge targets left out (FPREF_GOLDEN_OMIT_*): 0 but in tests of the suite's strength */
};

/* Edge targets a job can leave out, so that a test shows which mutants
 * (fpref_golden_mutants.h) each one is there to expose. */
enum {
	FPREF_GOLDEN_OMIT_MIDPOINTS = 1, /* conversions: the values around each midpoint below max finite and below the least */
	FPREF_GOLDEN_OMIT_OVERFLOW = 2,  /* conversions: the overflow band above max finite */
	FPREF_GOLDEN_OMIT_OP_CASES = 4,  /* operations: the aimed cases (NaNs, zeros, overflow band, ties, subnormals) */
	FPREF_GOLDEN_OMIT_DOT_CASES = 8  /* dot products: the cases after the random ones */
};

struct fpref_golden_suite {
	char name[64];
	uint64_t seed;
	bool npy;                    /* also write .npy arrays beside each file (suite line "npy", or gen --npy) */
	bool campaign;               /* "campaign NAME" instead of "suite NAME": a sweep (fpref_golden_sweep.h) */
	unsigned chunk_log2;         /* campaigns: 2^chunk_log2 inputs per chunk (line "chunk N"; 20) */
	/* campaigns: line "mutant NAME": the emulator's bits replaced by the
	 * mutant's (fpref_golden_mutants.h), a known bug for the sweep to
	 * find (tests/sweep.sh); NULL */
	const struct fpref_mutant *mutant;
	/* campaigns: the chunk at which each job starts, njobs + 1 of them,
	 * the last the campaign's count (fpref_golden_sweep_chunk_at's index) */
	uint64_t *chunk_start;
	struct fpref_golden_job *jobs;
	size_t njobs;
};

/* Read a suite.  0, or -1 with a message naming the file and line. */
int fpref_golden_suite_read(const char *path, struct fpref_golden_suite *s, char *err, size_t errlen);
void fpref_golden_suite_free(struct fpref_golden_suite *s);
/* Parse one ENV spelling for a conversion to target (source NULL: an
 * operation in one format), so that profile rows for a source apply. */
int fpref_golden_env_parse(const char *text, const struct fpref_format *source, const struct fpref_format *target,
			   struct fpref_env *env, char *err, size_t errlen);

/* ---- generation ----
 * The job's vectors, each computed by the emulator and by the oracle; the
 * body is TestFloat-style lines ("a [b [c]] result flags"; for dot
 * "a_1..a_K b_1..b_K c d").  0, or -1 with a message naming the first case
 * on which the engines disagree (or no memory).  *body is malloc'ed. */
int fpref_golden_compute(const struct fpref_golden_job *j, char **body, size_t *len, unsigned long *vectors, char *err,
			 size_t errlen);
/* The header the job's file carries (without the closing checksum). */
void fpref_golden_header(const struct fpref_golden_job *j, const char *suite, unsigned long vectors, char *buf,
			 size_t len);
/* Write header, body and "# sha256 HEX" (of header and body) to
 * dir/job->path: a temporary of this process's own beside it, then renamed,
 * so that the path is either absent, old or complete, however many runs
 * write it at once.  Creates the job's subfolder.  0, or -1 with a message.
 * The header, format 2:
 *   # fpref golden vectors, format 2
 *   # fpref VERSION / # suite NAME / # op OP / # formats F / # env ENV
 *   # oracle GNU MPFR VERSION / # generator GEN / # columns COLUMNS
 *   # descriptor NAME exp=E man=M bias=B specials=S subnormals=on|off
 *     zero=on|off signed|unsigned bits=W   (the input format, then for
 *     convert and dot the output format)
 *   # flags hex, the OR of inexact 01 underflow 02 overflow 04 infinite 08
 *     invalid 10 (SoftFloat's order)   (not for dot, which has no flags) */
int fpref_golden_write(const char *dir, const struct fpref_golden_job *j, const char *suite, const char *body,
		       size_t len, unsigned long vectors, char *err, size_t errlen);
/* The same file (header, body, checksum) on an open stream.  0, or -1 when
 * a write failed. */
int fpref_golden_put(FILE *f, const struct fpref_golden_job *j, const char *suite, const char *body, size_t len,
		     unsigned long vectors);
/* The body as NumPy arrays beside the file: NAME.inputs.npy (vectors x
 * inputs, unsigned items wide enough for every input's container),
 * NAME.results.npy (the result patterns, or 0/1) and, except for dot,
 * NAME.flags.npy (|u1).  Each written atomically.  0, or -1 with a message. */
int fpref_golden_write_npy(const char *dir, const struct fpref_golden_job *j, const char *body, char *err,
			   size_t errlen);
/* Whether dir/job->path is already a complete, intact file with the
 * header this job would write (so that a resumed run can skip it). */
bool fpref_golden_is_done(const char *dir, const struct fpref_golden_job *j, const char *suite,
			  unsigned long *vectors);

/* ---- a whole suite ---- */
struct fpref_golden_progress {
	size_t files, files_total, skipped;
	size_t arrays_added;         /* complete files whose missing .npy arrays were made */
	unsigned long long vectors;
	unsigned threads;            /* the threads it runs on */
};
/* Called now and then (every 0.2 s) from the calling thread while a suite
 * runs, and once at the end; nonzero asks the run to stop. */
typedef int (*fpref_golden_progress_fn)(const struct fpref_golden_progress *p, void *arg);
/* The threads a run of the oracle may take: wanted, or 1 where this MPFR
 * is not thread-safe (built without thread-local storage). */
unsigned fpref_golden_threads(unsigned wanted);
/* Make every file of the suite that belongs to shard `index` of `count`
 * (file k belongs to shard k mod count) in dir, skipping those already
 * complete (but making, when the suite makes arrays, the .npy arrays such
 * a file lacks: progress arrays_added), on `threads` threads (one where
 * MPFR is not thread-safe).  When fn asks to stop, the threads finish the
 * files they are writing, start no more, and it returns -2 with a message
 * (the command asks on SIGINT and SIGTERM).  0, or -1 with a message naming
 * the file and case that failed (finished files stay). */
int fpref_golden_generate(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
			  unsigned threads, fpref_golden_progress_fn fn, void *arg, struct fpref_golden_progress *done,
			  char *err, size_t errlen);

/* ---- manifests ----
 * dir/MANIFEST: "SHA256  PATH" for every file of the suite, in the suite's
 * order (the format sha256sum -c reads); after each golden file, when the
 * suite makes arrays, its .npy arrays (inputs, results, flags).  A shard
 * writes MANIFEST.shard-I-of-N with its own files, in the same order;
 * merging the N of them gives the MANIFEST an unsharded run writes, byte
 * for byte.  Each written atomically.  0, or -1 with a message (a file
 * missing, or unwritable). */
int fpref_golden_write_manifest(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
				char *err, size_t errlen);
/* MANIFEST from the shard manifests in dir: every shard's must be there,
 * for one N, and list every file of the suite.  0, or -1 with a message
 * naming the missing shard or file. */
int fpref_golden_merge_manifests(const struct fpref_golden_suite *s, const char *dir, char *err, size_t errlen);
/* The .npy arrays beside a job's file, relative to the output folder:
 * NAME.inputs.npy, NAME.results.npy and (except for dot) NAME.flags.npy.
 * Returns how many (2 or 3). */
int fpref_golden_arrays(const struct fpref_golden_job *j, char names[3][300]);

/* The golden files (*.txt) below a folder, relative to it, sorted; hidden
 * ones (temporaries) left out.  0, or -1 (unreadable, or no memory). */
struct fpref_golden_list {
	char **paths;
	size_t n, cap;
};
int fpref_golden_list_files(const char *dir, struct fpref_golden_list *l);
void fpref_golden_list_free(struct fpref_golden_list *l);
/* Check dir against dir/MANIFEST: every file it lists present and with
 * its checksum, and no golden file that it does not list.  1: there is
 * no MANIFEST; 0: the folder is what it lists (*listed: how many files);
 * -1: not, with a message naming the first missing, changed or extra
 * file. */
int fpref_golden_manifest_check(const char *dir, size_t *listed, char *err, size_t errlen);

/* ---- reading ---- */
struct fpref_golden_file {
	int format_version;
	char fpref_version[32], suite[64], op[16], formats[160], env[256], oracle[64], generator[128], columns[64];
	char *text;                  /* the whole file */
	size_t header_len;           /* bytes of header at the start of text */
	char **lines;                /* body lines (NUL-terminated in text) */
	size_t nlines;
	char sha256[65];
};
/* Read and check a golden file: the header fields, every body line, the
 * closing SHA-256 of the header and body (format 2) or of the body alone
 * (format 1).  0, or -1 with a message saying what is
 * wrong (not a golden file, truncated, checksum mismatch, bad header). */
int fpref_golden_read(const char *path, struct fpref_golden_file *g, char *err, size_t errlen);
void fpref_golden_file_free(struct fpref_golden_file *g);
/* The job a golden file's header describes (formats, op, env, model). */
int fpref_golden_job_of(const struct fpref_golden_file *g, struct fpref_golden_job *j, char *err, size_t errlen);

/* ---- verification ---- */
enum fpref_mismatch {
	FPREF_MISMATCH_DIRECTION,    /* the golden's other neighbour, the exact value not consulted */
	FPREF_MISMATCH_TIE,          /* the exact value a midpoint, the tie broken the other way */
	FPREF_MISMATCH_DOUBLE_ROUNDING, /* what rounding to float32, float16, bfloat16 (or the target's
				      * precision, unbounded exponent) and then to the target gives */
	FPREF_MISMATCH_TRUNCATED,    /* the exact value's neighbour toward zero, where the golden is not */
	FPREF_MISMATCH_AWAY,         /* its neighbour away from zero, where the golden is not (no tie) */
	FPREF_MISMATCH_FLUSHED,      /* zero for a subnormal golden result (or for a tiny exact value) */
	FPREF_MISMATCH_NOT_FLUSHED,  /* a subnormal for a zero golden result */
	FPREF_MISMATCH_DAZ,          /* what the job gives with subnormal inputs read as zero */
	FPREF_MISMATCH_NAN_ENCODING, /* both NaN, other bits */
	FPREF_MISMATCH_SATURATION,   /* max finite for inf (formats with inf) */
	FPREF_MISMATCH_INF_FOR_MAX,  /* inf for max finite (formats with inf) */
	FPREF_MISMATCH_MAX_FOR_NAN,  /* max finite for NaN (E4M3FN's overflow, or a NaN lost) */
	FPREF_MISMATCH_NAN_FOR_MAX,  /* NaN for max finite */
	FPREF_MISMATCH_NAN_FOR_INF,  /* NaN for inf (an overflow to NaN in a format that has inf) */
	FPREF_MISMATCH_ZERO_SIGN,    /* +0 against -0 */
	FPREF_MISMATCH_FLAGS,        /* the same bits, other flags */
	/* where the golden is a model's (dot products, GEMMs), not the
	 * correct rounding: the result against the golden, both measured
	 * against the exact value */
	FPREF_MISMATCH_NEARER,       /* nearer the exact value than the golden (accumulated more precisely) */
	FPREF_MISMATCH_FARTHER,      /* farther from it than the golden */
	FPREF_MISMATCH_OTHER,
	FPREF_MISMATCH_COUNT
};
const char *fpref_golden_mismatch_name(enum fpref_mismatch m);
/* The class of a result r (with flags rf, or -1 when not given) against
 * the golden g (flags gf) from the bits alone (no tie, double rounding,
 * truncation or DAZ: those need the exact value); call only when they
 * differ. */
enum fpref_mismatch fpref_golden_classify(const struct fpref_format *f, uint64_t g, unsigned gf, uint64_t r, int rf);
/* Every class true of a mismatch on one line of job j (in: the line's
 * inputs), as a mask of 1 << class, told against the exact value the
 * oracle computes from them: a tie, double rounding, truncation, rounding
 * away, subnormal inputs read as zero, where the bits alone say less.  A
 * line can be several at once (a zero for a subnormal golden value can be
 * truncation too); golden/classify.c. */
unsigned fpref_golden_classes_exact(const struct fpref_golden_job *j, const uint64_t *in, uint64_t g, unsigned gf,
				    uint64_t r, int rf);
/* The first class of a mask in an order (NULL: the most specific first). */
enum fpref_mismatch fpref_golden_class_first(unsigned classes, const enum fpref_mismatch *order);
/* fpref_golden_class_first(fpref_golden_classes_exact(...), NULL): one line alone. */
enum fpref_mismatch fpref_golden_classify_exact(const struct fpref_golden_job *j, const uint64_t *in, uint64_t g,
						unsigned gf, uint64_t r, int rf);
/* A GEMM element's class (fpref_golden_gemm_verify): the bits' class
 * where it says more than "the other neighbour" or "other", else whether
 * the result is nearer the exact value than the golden (the model's)
 * or farther, from their absolute errors (NaN: not finite). */
enum fpref_mismatch fpref_golden_classify_errors(const struct fpref_format *f, uint64_t g, uint64_t r, double golden_abs,
						 double got_abs);
/* A file's mismatches counted by their masks of classes (the distinct
 * masks are few: a list). */
struct fpref_class_tally {
	unsigned *masks;
	size_t *counts;
	size_t n, cap;
};
/* Count one mismatch of these classes.  0, or -1 when out of memory. */
int fpref_golden_class_tally_add(struct fpref_class_tally *t, unsigned classes);
void fpref_golden_class_tally_free(struct fpref_class_tally *t);
/* The mismatches told as few classes as are true of them:
 * order[0..FPREF_MISMATCH_COUNT) is the greedy cover (the class true of
 * most mismatches first, then of most of those left), so that one bug is
 * one class, not three; fpref_golden_class_first(mask, order) is then each
 * mismatch's class. */
void fpref_golden_class_order(const struct fpref_class_tally *t, enum fpref_mismatch *order);

/* One body line of a golden file: its inputs, the golden result and flags
 * (-1 for dot lines, which have none).  0, or -1 with a message. */
struct fpref_golden_line {
	uint64_t in[2 * 512 + 1];
	size_t nin;
	uint64_t result;
	int flags;
};
int fpref_golden_parse_line(const struct fpref_golden_job *j, const char *line, struct fpref_golden_line *l, char *err,
			    size_t errlen);

/* Results to judge, one per golden line: bits, and flags or -1. */
struct fpref_golden_results {
	uint64_t *bits;
	int *flags;
	size_t n;
};
void fpref_golden_results_free(struct fpref_golden_results *r);
/* Read results from a file: lines in the golden file's format (its inputs
 * repeated, then the result and optionally flags, -1 where absent; '#' lines ignored except
 * "# op", "# formats" and "# env", which must match the golden header),
 * or a .npy array of one result per golden line (items of the output's
 * container width, or float items of that width).  0, or -1 with a
 * message naming the file, the line and what is wrong. */
int fpref_golden_results_read(const char *path, const struct fpref_golden_file *g, const struct fpref_golden_job *j,
			      struct fpref_golden_results *r, char *err, size_t errlen);
/* The oracle's results for every golden line, computed afresh. */
int fpref_golden_results_oracle(const struct fpref_golden_file *g, const struct fpref_golden_job *j,
				struct fpref_golden_results *r, char *err, size_t errlen);

/* Called now and then during long work with the part done and the whole. */
typedef void (*fpref_progress_fn)(void *ctx, size_t done, size_t total);

struct fpref_verify_options {
	double tolerance_ulps;  /* < 0: none */
	double tolerance_rel;   /* < 0: none */
	size_t show;            /* how many mismatches to keep for display */
	fpref_progress_fn progress; /* NULL: none; called every 4096 cases */
	void *progress_ctx;
};

#define FPREF_VERIFY_BUCKETS 7 /* ulps: 0, (0, 0.5], (0.5, 1], (1, 2], (2, 4], (4, 16], > 16 */
/* The bucket of an error in ulps (NaN: the last). */
int fpref_golden_ulps_bucket(double ulps);

struct fpref_verify_case {
	size_t line;            /* 1-based body line */
	enum fpref_mismatch kind;
	uint64_t golden, got;
	int golden_flags, got_flags;
	double ulps;            /* against the golden value; NaN when not finite */
	char inputs[160];
};

struct fpref_verify_report {
	size_t cases, exact, within, outside;
	size_t by_kind[FPREF_MISMATCH_COUNT];
	size_t ulps_golden[FPREF_VERIFY_BUCKETS], ulps_exact[FPREF_VERIFY_BUCKETS];
	size_t nonfinite;       /* results or golden values with no error in ulps */
	/* the error against the exact value leaves out, and counts apart, the
	 * finite cases whose exact value lies beyond the largest finite
	 * (saturated) and those whose golden value is zero: measured_exact
	 * cases are in ulps_exact, max_*_exact and sum_ulps_exact */
	size_t saturated, zero_golden, measured_exact;
	double max_ulps_golden, max_rel_golden, max_ulps_exact, max_rel_exact, sum_ulps_exact;
	/* results that carry flags: with none (a kernel's values, a .npy),
	 * the cases are judged on the values alone */
	size_t with_flags;
	size_t with_bound, above_bound;
	struct fpref_verify_case *shown;
	size_t nshown;
};
void fpref_golden_verify_report_free(struct fpref_verify_report *r);
/* The error of got against want (patterns of f) as relative and in ulps
 * of f; both NaN when either is not finite. */
void fpref_golden_verify_error(const struct fpref_format *f, uint64_t want, uint64_t got, double *rel, double *ulps);
/* Whether got passes for want under o's tolerances, given their error:
 * numerically close enough, or the same kind of special. */
bool fpref_golden_verify_tolerated(const struct fpref_format *f, uint64_t want, uint64_t got, double ulps, double rel,
			    const struct fpref_verify_options *o);
/* Judge results against a golden file.  0, or -1 with a message. */
int fpref_golden_verify(const struct fpref_golden_file *g, const struct fpref_golden_job *j,
			const struct fpref_golden_results *r, const struct fpref_verify_options *o,
			struct fpref_verify_report *rep, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
