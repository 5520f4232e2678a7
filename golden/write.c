/* Writing a job's golden file: its header (what made it and how to read
 * it), the body and the closing SHA-256, made whole or not at all; its
 * .npy arrays; and whether a folder already holds the file as this build
 * would make it.  Above generation: it only stores what generate.c made. */
#include <errno.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fpref_formats_file.h"
#include "fpref_formats_npy.h"
#include "fpref_golden.h"
/* ---- the file ---- */

static void describe_formats(const struct fpref_golden_job *j, char *buf, size_t len)
{
	if (j->kind == FPREF_GOLDEN_OP)
		snprintf(buf, len, "%s", j->in.name);
	else if (j->kind == FPREF_GOLDEN_CONVERT)
		snprintf(buf, len, "%s -> %s", j->in.name, j->out.name);
	else if (fpref_format_same(&j->in, &j->in_b))
		snprintf(buf, len, "%s %s -> %s", j->model.gpu, j->in.name, j->out.name);
	else /* A's format * B's: one word, as an old reader splits the line */
		snprintf(buf, len, "%s %s*%s -> %s", j->model.gpu, j->in.name, j->in_b.name, j->out.name);
}

/* "# descriptor NAME exp=E man=M bias=B specials=S subnormals=on|off
 * zero=on|off signed|unsigned bits=W": the whole format, so that a reader
 * needs no catalogue (and a custom format is as plain as a named one). */
static int describe_format(const struct fpref_format *f, char *buf, size_t len)
{
	return snprintf(buf, len, "# descriptor %s exp=%d man=%d bias=%d specials=%s subnormals=%s zero=%s %s bits=%d\n",
			f->name, f->exp_bits, f->man_bits, f->bias, fpref_specials_name(f->specials),
			f->subnormals ? "on" : "off", f->has_zero ? "on" : "off", f->is_signed ? "signed" : "unsigned",
			fpref_format_container_bits(f));
}

void fpref_golden_header(const struct fpref_golden_job *j, const char *suite, unsigned long vectors, char *buf,
			 size_t len)
{
	(void)vectors;
	char formats[200], env[256], gen[160], columns[64];
	describe_formats(j, formats, sizeof formats);
	if (j->kind == FPREF_GOLDEN_DOT)
		fpref_tc_model_describe(&j->model, j->out.name, env, sizeof env);
	else {
		fpref_env_describe(&j->env, env, sizeof env);
		size_t n = strlen(env);
		snprintf(env + n, sizeof env - n, " (%s)", j->env_text);
	}
	int n = 0;
	if (j->exhaustive)
		n = snprintf(gen, sizeof gen, "exhaustive");
	if (j->edge)
		n += snprintf(gen + n, sizeof gen - (size_t)n, "%sedge", n ? "+" : "");
	if (j->probe)
		snprintf(gen + n, sizeof gen - (size_t)n, "probe:%u seed %llu", j->K, (unsigned long long)j->seed);
	else if (j->cases)
		snprintf(gen + n, sizeof gen - (size_t)n, "cases:%u (%zu, written out in the suite)", j->K, j->ncases);
	else if (j->random_count && j->K)
		snprintf(gen + n, sizeof gen - (size_t)n, "random:%lu:%u seed %llu", j->random_count, j->K,
			 (unsigned long long)j->seed);
	else if (j->random_count)
		snprintf(gen + n, sizeof gen - (size_t)n, "%srandom:%lu seed %llu", n ? "+" : "", j->random_count,
			 (unsigned long long)j->seed);
	int arity = j->kind == FPREF_GOLDEN_OP ? fpref_op_arity(j->op) : 1;
	if (j->kind == FPREF_GOLDEN_DOT)
		snprintf(columns, sizeof columns, "a_1..a_%u b_1..b_%u c d", j->K, j->K);
	else
		snprintf(columns, sizeof columns, "%s result flags", arity == 1 ? "a" : arity == 2 ? "a b" : "a b c");
	int at = snprintf(buf, len,
		 "# fpref golden vectors, format %d\n"
		 "# fpref %s\n"
		 "# suite %s\n"
		 "# op %s\n"
		 "# formats %s\n"
		 "# env %s\n"
		 "# oracle GNU MPFR %s\n"
		 "# generator %s\n"
		 "# columns %s\n",
		 FPREF_GOLDEN_FORMAT_VERSION, PACKAGE_VERSION, suite,
		 j->kind == FPREF_GOLDEN_OP ? fpref_op_name(j->op) : j->kind == FPREF_GOLDEN_CONVERT ? "convert" : "dot",
		 formats, env, mpfr_get_version(), gen, columns);
	/* format 2: the descriptors, and what the flags column's bits mean */
	if (at > 0 && (size_t)at < len)
		at += describe_format(&j->in, buf + at, len - (size_t)at);
	if (at > 0 && (size_t)at < len && j->kind == FPREF_GOLDEN_DOT && !fpref_format_same(&j->in, &j->in_b))
		at += describe_format(&j->in_b, buf + at, len - (size_t)at);
	if (at > 0 && (size_t)at < len && j->kind != FPREF_GOLDEN_OP)
		at += describe_format(&j->out, buf + at, len - (size_t)at);
	if (at > 0 && (size_t)at < len && j->kind != FPREF_GOLDEN_DOT)
		snprintf(buf + at, len - (size_t)at, "# flags hex, the OR of inexact 01 underflow 02 overflow 04 infinite 08 "
						     "invalid 10 (SoftFloat's order)\n");
}

static int make_dirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		int r = mkdir(path, 0777);
		*p = '/';
		if (r != 0 && errno != EEXIST)
			return -1;
	}
	return 0;
}

int fpref_golden_write(const char *dir, const struct fpref_golden_job *j, const char *suite, const char *body,
		       size_t len, unsigned long vectors, char *err, size_t errlen)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, j->path);
	if (make_dirs(path) != 0) {
		snprintf(err, errlen, "%s: cannot create its folder (%s)", path, strerror(errno));
		return -1;
	}
	struct fpref_atomic file = { 0 };
	if (fpref_atomic_open(&file, path, err, errlen) != 0)
		return -1;
	bool ok = fpref_golden_put(file.f, j, suite, body, len, vectors) == 0;
	return fpref_atomic_commit(&file, ok, err, errlen);
}

int fpref_golden_put(FILE *f, const struct fpref_golden_job *j, const char *suite, const char *body, size_t len,
		     unsigned long vectors)
{
	char header[2048], hex[65];
	fpref_golden_header(j, suite, vectors, header, sizeof header);
	struct fpref_sha256 sha;
	fpref_golden_sha256_init(&sha);
	fpref_golden_sha256_update(&sha, header, strlen(header)); /* format 2: the header is covered too */
	fpref_golden_sha256_update(&sha, body, len);
	fpref_golden_sha256_hex(&sha, hex);
	return fputs(header, f) >= 0 && fwrite(body, 1, len, f) == len && fprintf(f, "# sha256 %s\n", hex) > 0 ? 0 : -1;
}

static size_t item_bytes(const struct fpref_format *f)
{
	size_t b = (size_t)(fpref_format_container_bits(f) + 7) / 8;
	return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

static const char *unsigned_descr(size_t bytes)
{
	return bytes == 1 ? "|u1" : bytes == 2 ? "<u2" : bytes == 4 ? "<u4" : "<u8";
}

int fpref_golden_write_npy(const char *dir, const struct fpref_golden_job *j, const char *body, char *err,
			   size_t errlen)
{
	size_t n = 0;
	for (const char *p = body; *p; p++)
		n += *p == '\n';
	size_t nin = j->kind == FPREF_GOLDEN_DOT ? 2 * (size_t)j->K + 1
		     : j->kind == FPREF_GOLDEN_OP ? (size_t)fpref_op_arity(j->op)
						  : 1;
	size_t in_bytes = item_bytes(&j->in), out_bytes = item_bytes(&j->out);
	if (j->kind == FPREF_GOLDEN_DOT && out_bytes > in_bytes)
		in_bytes = out_bytes; /* c sits among the inputs */
	if (j->kind == FPREF_GOLDEN_DOT && item_bytes(&j->in_b) > in_bytes)
		in_bytes = item_bytes(&j->in_b); /* and B's */
	struct fpref_golden_line *l = malloc(sizeof *l);
	unsigned char *inputs = calloc(n * nin + 1, in_bytes), *results = calloc(n + 1, out_bytes), *flags = calloc(n + 1, 1);
	char *line = malloc(1 << 16);
	int status = l && inputs && results && flags && line ? 0 : -1;
	err[0] = '\0';
	size_t row = 0;
	for (const char *p = body; status == 0 && *p; row++) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p);
		if (len >= 1 << 16) {
			status = -1;
			break;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl + 1;
		if (fpref_golden_parse_line(j, line, l, err, errlen) != 0) {
			status = -1;
			break;
		}
		for (size_t k = 0; k < nin; k++)
			memcpy(inputs + (row * nin + k) * in_bytes, &l->in[k], in_bytes); /* little-endian host */
		memcpy(results + row * out_bytes, &l->result, out_bytes);
		flags[row] = (unsigned char)(l->flags < 0 ? 0 : l->flags);
	}
	char names[3][300], path[1400];
	int arrays = fpref_golden_arrays(j, names); /* inputs, results, and flags except for dot */
	size_t shape[2] = { n, nin };
	snprintf(path, sizeof path, "%s/%s", dir, names[0]);
	if (status == 0 && make_dirs(path) != 0)
		status = -1;
	if (status == 0) {
		snprintf(path, sizeof path, "%s/%s", dir, names[0]);
		status = fpref_npy_write(path, unsigned_descr(in_bytes), shape, 2, inputs, in_bytes, err, errlen);
	}
	if (status == 0) {
		snprintf(path, sizeof path, "%s/%s", dir, names[1]);
		status = fpref_npy_write(path, unsigned_descr(out_bytes), shape, 1, results, out_bytes, err, errlen);
	}
	if (status == 0 && arrays == 3) {
		snprintf(path, sizeof path, "%s/%s", dir, names[2]);
		status = fpref_npy_write(path, "|u1", shape, 1, flags, 1, err, errlen);
	}
	if (status != 0 && !err[0])
		snprintf(err, errlen, "%s: cannot make its arrays (out of memory, or its folder)", j->path);
	free(l);
	free(inputs);
	free(results);
	free(flags);
	free(line);
	return status;
}

bool fpref_golden_is_done(const char *dir, const struct fpref_golden_job *j, const char *suite,
			  unsigned long *vectors)
{
	char path[1024], header[2048], err[256];
	snprintf(path, sizeof path, "%s/%s", dir, j->path);
	struct fpref_golden_file g;
	if (access(path, F_OK) != 0 || fpref_golden_read(path, &g, err, sizeof err) != 0)
		return false;
	fpref_golden_header(j, suite, 0, header, sizeof header);
	bool same = g.header_len == strlen(header) && memcmp(g.text, header, g.header_len) == 0;
	*vectors = g.nlines;
	fpref_golden_file_free(&g);
	return same;
}
