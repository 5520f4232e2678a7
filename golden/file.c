/* Reading golden files: the header's fields, the body's lines, and the
 * closing SHA-256, which must match the header and the body (format 2) or
 * the body alone (format 1, still read). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden.h"

static const char magic[] = "# fpref golden vectors, format ";

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *bigger = realloc(buf, 2 * cap + 1);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		free(buf);
		snprintf(err, errlen, "%s: cannot read it%s", path, buf ? "" : " (out of memory)");
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The value of header line "# KEY value" into dst. */
static bool header_field(const char *line, const char *key, char *dst, size_t len)
{
	size_t k = strlen(key);
	if (strncmp(line, "# ", 2) != 0 || strncmp(line + 2, key, k) != 0 || line[2 + k] != ' ')
		return false;
	snprintf(dst, len, "%s", line + 3 + k);
	return true;
}

int fpref_golden_read(const char *path, struct fpref_golden_file *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof *g);
	size_t len;
	g->text = slurp(path, &len, err, errlen);
	if (!g->text)
		return -1;
	if (strlen(g->text) != len) {
		fpref_golden_file_free(g);
		return fail(err, errlen, path, "holds a NUL byte: not a golden file");
	}
	if (strncmp(g->text, magic, sizeof magic - 1) != 0) {
		fpref_golden_file_free(g);
		return fail(err, errlen, path, "not a golden file (no '# fpref golden vectors' first line)");
	}
	if (len == 0 || g->text[len - 1] != '\n') {
		fpref_golden_file_free(g);
		return fail(err, errlen, path, "truncated (the last line is incomplete)");
	}
	/* the header: '#' lines up to the first body line */
	size_t count = 0;
	for (size_t i = 0; i < len; i++)
		count += g->text[i] == '\n';
	g->lines = malloc((count + 1) * sizeof *g->lines);
	if (!g->lines) {
		fpref_golden_file_free(g);
		return fail(err, errlen, path, "out of memory");
	}
	char *p = g->text, *body_start = NULL, *sha_line = NULL;
	bool header = true;
	while (*p) {
		char *nl = strchr(p, '\n');
		*nl = '\0';
		if (header && p[0] == '#') {
			char *l = p;
			if (strncmp(l, magic, sizeof magic - 1) == 0)
				g->format_version = atoi(l + sizeof magic - 1);
			header_field(l, "fpref", g->fpref_version, sizeof g->fpref_version);
			header_field(l, "suite", g->suite, sizeof g->suite);
			header_field(l, "op", g->op, sizeof g->op);
			header_field(l, "formats", g->formats, sizeof g->formats);
			header_field(l, "env", g->env, sizeof g->env);
			header_field(l, "oracle", g->oracle, sizeof g->oracle);
			header_field(l, "generator", g->generator, sizeof g->generator);
			header_field(l, "columns", g->columns, sizeof g->columns);
			if (strncmp(l, "# sha256 ", 9) == 0) {
				sha_line = l;
				body_start = l;
				header = false;
			}
		} else if (p[0] == '#') {
			if (strncmp(p, "# sha256 ", 9) != 0 || sha_line) {
				fpref_golden_file_free(g);
				return fail(err, errlen, path, "a '#' line inside the body");
			}
			sha_line = p;
		} else {
			if (header) {
				header = false;
				body_start = p;
				g->header_len = (size_t)(p - g->text);
			}
			if (sha_line) {
				fpref_golden_file_free(g);
				return fail(err, errlen, path, "lines after the closing sha256");
			}
			g->lines[g->nlines++] = p;
		}
		p = nl + 1;
	}
	if (!sha_line) {
		fpref_golden_file_free(g);
		return fail(err, errlen, path, "truncated (no closing '# sha256' line)");
	}
	if (body_start == sha_line)
		g->header_len = (size_t)(sha_line - g->text);
	if (g->format_version < 1 || g->format_version > FPREF_GOLDEN_FORMAT_VERSION || !g->op[0] || !g->formats[0] || !g->columns[0]) {
		fpref_golden_file_free(g);
		return fail(err, errlen, path, "bad header (format version, op, formats or columns missing)");
	}
	snprintf(g->sha256, sizeof g->sha256, "%s", sha_line + 9);
	for (size_t i = 0; i < g->header_len; i++) /* the header as it was, for comparison */
		if (g->text[i] == '\0')
			g->text[i] = '\n';
	/* the body's bytes are the text between the header and the sha256
	 * line, with the newlines this reader replaced; from format 2 on the
	 * header is hashed too, so that an edited '# op' is damage, not a FAIL */
	struct fpref_sha256 sha;
	char hex[65];
	fpref_golden_sha256_init(&sha);
	if (g->format_version >= 2)
		fpref_golden_sha256_update(&sha, g->text, g->header_len);
	for (size_t i = 0; i < g->nlines; i++) {
		fpref_golden_sha256_update(&sha, g->lines[i], strlen(g->lines[i]));
		fpref_golden_sha256_update(&sha, "\n", 1);
	}
	fpref_golden_sha256_hex(&sha, hex);
	if (strlen(g->sha256) != 64 || strcmp(hex, g->sha256) != 0) {
		const char *what = g->format_version >= 2 ? "header or body" : "body";
		fpref_golden_file_free(g);
		snprintf(err, errlen, "%s: checksum mismatch: the %s is not what was written (damaged or edited)", path, what);
		return -1;
	}
	return 0;
}

void fpref_golden_file_free(struct fpref_golden_file *g)
{
	free(g->text);
	free(g->lines);
	g->text = NULL;
	g->lines = NULL;
}
