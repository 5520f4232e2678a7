/* Batch input: TestFloat-style lines read one at a time.  A batch filter
 * (convert, op, dot) answers every good line and rejects a bad one with
 * its line number, going on to the next; the end says how many were
 * rejected and makes the exit status 2.  Data files (a steps file, probe
 * results) stop at the first bad line instead. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_line_reject(struct cli_lines *r, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, r->cmd ? "fpref %s: " : "fpref: ", r->cmd);
	if (r->name)
		fprintf(stderr, "%s:%lu: ", r->name, r->lineno);
	else
		fprintf(stderr, "line %lu: ", r->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	r->rejected++;
}

int cli_next_tokens(struct cli_lines *r, char **tokens, int max, int *status)
{
	ssize_t len;
	while ((len = getline(&r->line, &r->cap, r->in)) != -1) {
		r->lineno++;
		size_t content = (size_t)len - (r->line[len - 1] == '\n' ? 1 : 0);
		size_t most = r->max_bytes ? r->max_bytes : CLI_LINE_MAX_BYTES;
		if (content > most || memchr(r->line, '\0', (size_t)len)) {
			r->lines++;
			if (content > most)
				cli_line_reject(r, "longer than %zu bytes", most);
			else
				cli_line_reject(r, "binary data (a NUL byte)");
			*status = CLI_EXIT_USAGE;
			if (r->keep_going)
				continue;
			return -1;
		}
		int n = 0;
		for (char *t = strtok(r->line, " \t\r\n"); t && n < max; t = strtok(NULL, " \t\r\n"))
			tokens[n++] = t;
		if (n > 0) {
			r->lines++;
			return n;
		}
	}
	if (ferror(r->in)) {
		cli_fail(r->cmd, "cannot read %s", r->name ? r->name : "standard input");
		*status = CLI_EXIT_FAIL;
		return -1;
	}
	return 0;
}

int cli_lines_finish(struct cli_lines *r, int status)
{
	if (r->rejected) {
		cli_fail(r->cmd, "%lu lines, %lu rejected", r->lines, r->rejected);
		if (status == CLI_EXIT_OK)
			status = CLI_EXIT_USAGE;
	}
	return status;
}

void cli_lines_free(struct cli_lines *r)
{
	free(r->line);
	r->line = NULL;
}
