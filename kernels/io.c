/* Golden-file reading and results writing for fpref-cuda (see io.h). The
 * checks are strict because a silently misread file would turn into a
 * hardware "finding". */
#define _POSIX_C_SOURCE 200809L
#include "io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int header_value(const char *line, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);
	if (strncmp(line, "# ", 2) != 0 || strncmp(line + 2, key, kl) != 0 || line[2 + kl] != ' ')
		return 0;
	snprintf(out, outlen, "%s", line + 3 + kl);
	return 1;
}

/* "# columns a_1..a_K b_1..b_K c d" or "# columns a b result flags". */
static int parse_columns(const char *cols, struct fk_golden *g)
{
	if (strncmp(cols, "a_1..a_", 7) == 0) {
		char *end;
		long K = strtol(cols + 7, &end, 10);
		if (K < 1 || 2 * K + 1 > FK_MAX_TOKENS - 1 || *end != ' ')
			return -1;
		g->K = (int)K;
		g->nin = 2 * (int)K + 1;
		g->has_flags = 0;
		return 0;
	}
	int n = 0;
	char copy[256];
	snprintf(copy, sizeof copy, "%s", cols);
	char *save = NULL, *last = NULL, *prev = NULL;
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		prev = last;
		last = t;
		n++;
	}
	if (n < 3 || strcmp(last, "flags") != 0 || strcmp(prev, "result") != 0)
		return -1;
	g->nin = n - 2;
	g->has_flags = 1;
	return 0;
}

/* text[0..len) into out (at most outlen - 1 characters, none a space or
 * empty): 0, or -1. */
static int word(const char *text, size_t len, char *out, size_t outlen)
{
	if (len == 0 || len >= outlen || memchr(text, ' ', len))
		return -1;
	memcpy(out, text, len);
	out[len] = '\0';
	return 0;
}

int fk_formats_parse(const char *text, int with_preset, struct fk_formats *f)
{
	memset(f, 0, sizeof *f);
	const char *arrow = strstr(text, " -> "), *in = text;
	if (!arrow || strstr(arrow + 1, " -> ") || word(arrow + 4, strlen(arrow + 4), f->out, sizeof f->out) != 0)
		return -1;
	if (with_preset) {
		const char *space = memchr(text, ' ', (size_t)(arrow - text));
		if (!space || word(text, (size_t)(space - text), f->preset, sizeof f->preset) != 0)
			return -1;
		in = space + 1;
	}
	/* a dot's A*B: A's format, then B's */
	size_t inlen = (size_t)(arrow - in);
	const char *star = memchr(in, '*', inlen);
	if (!star)
		return word(in, inlen, f->a, sizeof f->a) != 0 || word(in, inlen, f->b, sizeof f->b) != 0 ? -1 : 0;
	size_t blen = inlen - (size_t)(star + 1 - in);
	if (word(in, (size_t)(star - in), f->a, sizeof f->a) != 0 || word(star + 1, blen, f->b, sizeof f->b) != 0 ||
	    strchr(f->b, '*'))
		return -1;
	return 0;
}

/* "# descriptor NAME ... bits=N": the name and N into g's next slot. */
static int parse_descriptor(const char *value, struct fk_golden *g, char names[3][64])
{
	const char *bits = strstr(value, " bits=");
	size_t nl = strcspn(value, " ");
	if (g->descriptors >= 3 || !bits || word(value, nl, names[g->descriptors], 64) != 0)
		return -1;
	char *end;
	long n = strtol(bits + 6, &end, 10);
	if (n < 1 || n > 64 || (*end && *end != ' '))
		return -1;
	g->desc_bits[g->descriptors++] = (int)n;
	return 0;
}

/* The header's formats, and what its descriptor lines say of them: a dot's
 * a columns are A's patterns, its b columns B's (the widths of line 1). */
static int check_formats(const char *path, struct fk_golden *g, char names[3][64], char *err, size_t errlen)
{
	int dot = g->K > 0;
	struct fk_formats *f = &g->fmt;
	if (fk_formats_parse(g->formats, dot, f) != 0) {
		snprintf(err, errlen, "%s: unreadable '# formats %s' (%s)", path, g->formats,
			 dot ? "a dot's: PRESET A -> OUT or PRESET A*B -> OUT" : "A -> OUT");
		return -1;
	}
	if (!dot && strcmp(f->a, f->b) != 0) {
		snprintf(err, errlen, "%s: '# formats %s' names two inputs, but the file is not a dot product's", path,
			 g->formats);
		return -1;
	}
	if (g->descriptors == 0)
		return 0; /* format 1: no descriptors */
	int two = dot && strcmp(f->a, f->b) != 0;
	const char *want[3] = { f->a, two ? f->b : f->out, f->out };
	int count = two ? 3 : 2;
	for (int i = 0; i < count && i < g->descriptors; i++)
		if (strcmp(names[i], want[i]) != 0) {
			snprintf(err, errlen, "%s: descriptor %d is %s, '# formats %s' says %s", path, i + 1, names[i],
				 g->formats, want[i]);
			return -1;
		}
	if (g->descriptors != count) {
		snprintf(err, errlen, "%s: %d '# descriptor' lines, '# formats %s' names %d formats", path, g->descriptors,
			 g->formats, count);
		return -1;
	}
	for (int c = 0; c < g->nin; c++) {
		int d = !dot ? 0 : c < g->K ? 0 : c < 2 * g->K ? (two ? 1 : 0) : count - 1;
		int digits = (g->desc_bits[d] + 3) / 4;
		if (g->width[c] != digits) {
			snprintf(err, errlen, "%s: column %d has %d hex digits, its format %s has %d bits (%d digits)", path,
				 c + 1, g->width[c], names[d], g->desc_bits[d], digits);
			return -1;
		}
	}
	return 0;
}

static int hex_token(const char *t, size_t len, uint64_t *v)
{
	if (len == 0 || len > 16)
		return -1;
	uint64_t x = 0;
	for (size_t i = 0; i < len; i++) {
		char c = t[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

/* One body line into g's arrays at index n. */
static int parse_body(char *line, struct fk_golden *g, size_t n, char *msg, size_t msglen)
{
	int want = g->nin + 1 + g->has_flags, count = 0;
	char *p = line;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, " ");
		uint64_t v;
		if (count >= want) {
			snprintf(msg, msglen, "more than %d columns", want);
			return -1;
		}
		if (hex_token(p, len, &v) != 0) {
			snprintf(msg, msglen, "column %d is not a hex pattern of at most 16 digits", count + 1);
			return -1;
		}
		int *w = count < g->nin ? &g->width[count] : count == g->nin ? &g->result_width : NULL;
		if (w && n == 0)
			*w = (int)len;
		else if (w && *w != (int)len) {
			snprintf(msg, msglen, "column %d has %zu hex digits, line 1 has %d", count + 1, len, *w);
			return -1;
		}
		if (count < g->nin)
			g->in[n * (size_t)g->nin + (size_t)count] = v;
		else if (count == g->nin)
			g->result[n] = v;
		count++;
		p += len;
	}
	if (count != want) {
		snprintf(msg, msglen, "%d columns, the header says %d", count, want);
		return -1;
	}
	return 0;
}

static int grow(struct fk_golden *g, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 4096;
	uint64_t *in = realloc(g->in, c * (size_t)g->nin * sizeof *in);
	if (in)
		g->in = in;
	uint64_t *res = in ? realloc(g->result, c * sizeof *res) : NULL;
	if (res)
		g->result = res;
	if (!in || !res)
		return -1;
	*cap = c;
	return 0;
}

static int read_lines(FILE *f, const char *path, struct fk_golden *g, char *err, size_t errlen)
{
	char *line = NULL, cols[256] = "", msg[160], desc[256], names[3][64];
	size_t cap = 0, lcap = 0, lineno = 0;
	int seen_sha = 0, status = 0;
	ssize_t len;
	while (status == 0 && (len = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (seen_sha) {
			snprintf(err, errlen, "%s:%zu: text after the '# sha256' line", path, lineno);
			status = -1;
		} else if (line[0] == '#') {
			header_value(line, "op", g->op, sizeof g->op);
			header_value(line, "formats", g->formats, sizeof g->formats);
			header_value(line, "env", g->env, sizeof g->env);
			if (header_value(line, "columns", cols, sizeof cols) && parse_columns(cols, g) != 0) {
				snprintf(err, errlen, "%s:%zu: unreadable '# columns %s'", path, lineno, cols);
				status = -1;
			}
			if (header_value(line, "descriptor", desc, sizeof desc) && parse_descriptor(desc, g, names) != 0) {
				snprintf(err, errlen, "%s:%zu: unreadable '# descriptor %s' (NAME ... bits=N, at most 3)", path,
					 lineno, desc);
				status = -1;
			}
			seen_sha = strncmp(line, "# sha256 ", 9) == 0;
		} else if (g->nin == 0) {
			snprintf(err, errlen, "%s:%zu: a body line before the '# columns' header", path, lineno);
			status = -1;
		} else if (g->lines == cap && grow(g, &cap) != 0) {
			snprintf(err, errlen, "%s: out of memory at line %zu", path, lineno);
			status = -1;
		} else if (parse_body(line, g, g->lines, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "%s:%zu: %s", path, lineno, msg);
			status = -1;
		} else {
			g->lines++;
		}
	}
	free(line);
	if (status == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		status = -1;
	}
	if (status == 0 && !seen_sha) {
		snprintf(err, errlen, "%s: no '# sha256' line at the end (truncated?)", path);
		status = -1;
	}
	if (status == 0 && (!g->op[0] || !g->formats[0] || !g->env[0] || g->lines == 0)) {
		snprintf(err, errlen, "%s: not a golden file (no '# op', '# formats', '# env' or no vectors)", path);
		status = -1;
	}
	if (status == 0)
		status = check_formats(path, g, names, err, errlen);
	return status;
}

int fk_golden_read(const char *path, struct fk_golden *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof *g);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int status = read_lines(f, path, g, err, errlen);
	fclose(f);
	if (status != 0)
		fk_golden_free(g);
	return status;
}

void fk_golden_free(struct fk_golden *g)
{
	free(g->in);
	free(g->result);
	g->in = g->result = NULL;
}

static void header_line(FILE *f, const char *key, const char *value)
{
	if (value && value[0])
		fprintf(f, "# %s %s\n", key, value);
}

static int write_body(FILE *f, const struct fk_golden *g, const struct fk_results_header *h, const uint64_t *result)
{
	fprintf(f, "# fpref-cuda results, format 1\n");
	header_line(f, "op", g->op);
	header_line(f, "formats", g->formats);
	header_line(f, "env", g->env);
	header_line(f, "kernel", h->kernel);
	header_line(f, "path", h->path);
	header_line(f, "gpu", h->gpu);
	header_line(f, "driver", h->driver);
	header_line(f, "toolkit", h->toolkit);
	for (size_t n = 0; n < g->lines; n++) {
		for (int c = 0; c < g->nin; c++)
			fprintf(f, "%0*llX ", g->width[c], (unsigned long long)g->in[n * (size_t)g->nin + (size_t)c]);
		fprintf(f, "%0*llX\n", g->result_width, (unsigned long long)result[n]);
	}
	return ferror(f) ? -1 : 0;
}

int fk_results_write(const char *path, const struct fk_golden *g, const struct fk_results_header *h,
		     const uint64_t *result, char *err, size_t errlen)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	int bad = write_body(f, g, h, result);
	bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
