/* The lines of a golden file read back: the job its header names (formats,
 * operation, environment or accumulation model) and each body line's
 * inputs, result and flags.  The parsing layer: the .npy writer, mutants
 * and verification read lines through these, and these call none of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden.h"
#include "parse_internal.h"

int fpref_golden_job_of(const struct fpref_golden_file *g, struct fpref_golden_job *j, char *err, size_t errlen)
{
	memset(j, 0, sizeof *j);
	char a[160] = "", b[160] = "", gpu[32] = "";
	const char *arrow = strstr(g->formats, " -> ");
	if (strcmp(g->op, "dot") == 0) {
		j->kind = FPREF_GOLDEN_DOT;
		if (!arrow || sscanf(g->formats, "%31s %159s -> %159s", gpu, a, b) != 3)
			goto bad;
	} else if (strcmp(g->op, "convert") == 0) {
		j->kind = FPREF_GOLDEN_CONVERT;
		if (!arrow || sscanf(g->formats, "%159s -> %159s", a, b) != 2)
			goto bad;
	} else {
		j->kind = FPREF_GOLDEN_OP;
		if (fpref_op_parse(g->op, &j->op) != 0) {
			snprintf(err, errlen, "unknown op '%s' in the header", g->op);
			return -1;
		}
		snprintf(a, sizeof a, "%s", g->formats);
		snprintf(b, sizeof b, "%s", g->formats);
	}
	/* a dot's A*B: A's format and B's apart */
	char *star = j->kind == FPREF_GOLDEN_DOT ? strchr(a, '*') : NULL;
	if (star)
		*star = '\0';
	if (fpref_format_parse(a, &j->in, err, errlen) != 0 || fpref_format_parse(b, &j->out, err, errlen) != 0 ||
	    (star && fpref_format_parse(star + 1, &j->in_b, err, errlen) != 0))
		return -1;
	if (!star)
		j->in_b = j->in;
	if (j->kind == FPREF_GOLDEN_DOT) {
		const struct fpref_tc_model *m = fpref_tc_model_find_pair(gpu, &j->in, &j->in_b);
		struct fpref_tc_model custom;
		if (!m && strcmp(gpu, "generic") == 0 && fpref_tc_model_from_description(g->env, &custom) == 0 &&
		    fpref_tc_pair_ok(&custom, &j->in, &j->in_b))
			m = &custom; /* a generic model: its parameters are in the env line */
		unsigned K;
		if (!m || sscanf(g->columns, "a_1..a_%u", &K) != 1 || K == 0 || K > 512) {
			snprintf(err, errlen, "no model '%s' for %s, or bad columns '%s'", gpu, j->in.name, g->columns);
			return -1;
		}
		j->model = *m;
		j->K = K;
		return 0;
	}
	/* the environment as the suite spelt it, in the last parentheses */
	const char *open = strrchr(g->env, '('), *close = strrchr(g->env, ')');
	if (!open || !close || close < open || (size_t)(close - open) >= sizeof j->env_text)
		goto bad;
	snprintf(j->env_text, sizeof j->env_text, "%.*s", (int)(close - open - 1), open + 1);
	return fpref_golden_env_parse(j->env_text, j->kind == FPREF_GOLDEN_CONVERT ? &j->in : NULL, &j->out, &j->env, err,
				      errlen);
bad:
	snprintf(err, errlen, "unreadable header: formats '%s', env '%s'", g->formats, g->env);
	return -1;
}

static size_t inputs_of(const struct fpref_golden_job *j)
{
	return j->kind == FPREF_GOLDEN_DOT ? 2 * (size_t)j->K + 1
	       : j->kind == FPREF_GOLDEN_OP ? (size_t)fpref_op_arity(j->op)
					    : 1;
}

/* Parse the tokens of a line: inputs, then the result, then (not for dot)
 * flags; `need_flags` 0: no flags, 1: flags required, -1: optional. */
int fpref_golden_parse_tokens(const struct fpref_golden_job *j, const char *line, struct fpref_golden_line *l,
			      int need_flags, char *err, size_t errlen)
{
	size_t nin = inputs_of(j), n = 0;
	const char *p = line;
	char tok[40];
	l->nin = nin;
	l->flags = -1;
	bool compare = j->kind == FPREF_GOLDEN_OP && fpref_op_is_compare(j->op);
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, " \t\r");
		if (len >= sizeof tok) {
			snprintf(err, errlen, "token too long");
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		p += len;
		if (n < nin) {
			const struct fpref_format *f = j->kind != FPREF_GOLDEN_DOT ? &j->in
						       : n == nin - 1	    ? &j->out
						       : n >= j->K	    ? &j->in_b
									    : &j->in;
			if (fpref_format_parse_bits(f, tok, &l->in[n], err, errlen) != 0)
				return -1;
		} else if (n == nin) {
			if (compare) {
				if (strcmp(tok, "0") != 0 && strcmp(tok, "1") != 0) {
					snprintf(err, errlen, "'%s' is not a comparison result (0 or 1)", tok);
					return -1;
				}
				l->result = tok[0] == '1';
			} else if (fpref_format_parse_bits(&j->out, tok, &l->result, err, errlen) != 0)
				return -1;
		} else if (n == nin + 1 && j->kind != FPREF_GOLDEN_DOT && need_flags != 0) {
			char *end;
			unsigned long v = strtoul(tok, &end, 16);
			if (*end || v > 0x1F) {
				snprintf(err, errlen, "'%s' is not a flags byte (two hex digits, at most 1F)", tok);
				return -1;
			}
			l->flags = (int)v;
		} else {
			snprintf(err, errlen, "too many tokens (expected %zu inputs, the result%s)", nin,
				 j->kind == FPREF_GOLDEN_DOT ? "" : " and flags");
			return -1;
		}
		n++;
	}
	if (n < nin + 1 || (need_flags == 1 && n < nin + 2)) {
		snprintf(err, errlen, "too few tokens: %zu (expected %zu inputs, the result%s)", n, nin,
			 need_flags == 1 ? " and flags" : "");
		return -1;
	}
	return 0;
}

int fpref_golden_parse_line(const struct fpref_golden_job *j, const char *line, struct fpref_golden_line *l, char *err,
			    size_t errlen)
{
	return fpref_golden_parse_tokens(j, line, l, j->kind == FPREF_GOLDEN_DOT ? 0 : 1, err, errlen);
}
