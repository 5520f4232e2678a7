/* fpref probe order: a command as the black box (one start per batch of
 * lines, through a temporary file), the revealed tree printed as text or
 * JSON with the fpref dot arguments that run it; and fpref dot's
 * --model tree, the tree read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "order_io.h"

int dot_tree_open(const char *spec, bool scaled, const struct cli_model_text *t, const struct fpref_format *in_a,
		  const struct fpref_format *in_b, const struct fpref_format *out, struct fpref_tree **tree)
{
	const char *cmd = "dot";
	char err[512];
	if (!spec) {
		cli_fail(cmd, "--model tree needs --tree SPEC (as fpref probe order prints it)");
		return CLI_EXIT_USAGE;
	}
	if (scaled || t->block || t->frac || t->floor || t->final || t->promote || t->order) {
		cli_fail(cmd, "--model tree takes no scales and no other model options: the tree names each node's adder");
		return CLI_EXIT_USAGE;
	}
	if (out->man_bits > FPREF_OP_MAX_MAN_BITS) {
		cli_fail(cmd, "%s has %d fraction bits; additions of up to %d compute", out->name, out->man_bits,
			 FPREF_OP_MAX_MAN_BITS);
		return CLI_EXIT_USAGE;
	}
	if (!(*tree = fpref_emu_tree_parse(spec, in_a, in_b, out, err, sizeof err))) {
		cli_fail(cmd, "bad --tree: %s", err);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int dot_tree_line(const struct fpref_tree *tree, const struct fpref_format *out, const uint64_t *values, size_t K,
		  const struct fpref_env *env, uint64_t *d, char *err, size_t errlen)
{
	unsigned flags = 0;
	if (K != fpref_emu_tree_products(tree)) {
		snprintf(err, errlen, "the tree sums %zu products, the line has %zu", fpref_emu_tree_products(tree), K);
		return -1;
	}
	if (values[2 * K] != fpref_format_zero_bits(out, false)) {
		snprintf(err, errlen, "c must be +0: the tree has no place for c");
		return -1;
	}
	if (fpref_emu_tree_dot(tree, values, values + K, K, env, d, &flags) != 0) {
		snprintf(err, errlen, "the tree cannot compute this line (an invalid pattern?)");
		return -1;
	}
	return 0;
}

struct cmd_box {
	const char *cmd;
	const struct fpref_format *in, *out;
};

/* One start of the command: the lines written to a temporary file, which
 * becomes its standard input; one answer per line read back (the last
 * token of each non-blank line, so a box may echo its inputs). */
static int cmd_box_run(void *ctx, const uint64_t *lines, size_t nlines, size_t n, uint64_t *results, char *err,
		       size_t errlen)
{
	const struct cmd_box *b = ctx;
	const char *dir = getenv("TMPDIR");
	char path[4096], hex[32], *line = NULL, *shell = NULL;
	snprintf(path, sizeof path, "%s/fpref-order-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path), r = -1;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write a temporary file in %s", dir && *dir ? dir : "/tmp");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (size_t i = 0; i < nlines; i++)
		for (size_t k = 0; k < n; k++) {
			cli_hex(b->in, lines[i * n + k], hex, sizeof hex);
			fprintf(f, "%s%c", hex, k + 1 < n ? ' ' : '\n');
		}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s", path);
		unlink(path);
		return -1;
	}
	size_t len = strlen(b->cmd) + strlen(path) + 16, cap = 0, got = 0;
	shell = malloc(len);
	FILE *p = NULL;
	if (shell) {
		snprintf(shell, len, "(%s) < '%s'", b->cmd, path);
		fflush(NULL);
		p = popen(shell, "r");
	}
	if (!p)
		snprintf(err, errlen, "cannot start '%s'", b->cmd);
	bool bad = false;
	/* read to the end even after a bad answer, so that the box never
	 * blocks on a full pipe while pclose waits for it */
	while (p && getline(&line, &cap, p) != -1) {
		char *last = NULL;
		for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n"))
			last = t;
		if (!last || bad)
			continue;
		char why[256];
		if (got == nlines) {
			snprintf(err, errlen, "it answered more than the %zu lines given", nlines);
			bad = true;
		} else if (cli_parse_bits(b->out, last, &results[got], why, sizeof why) != 0) {
			snprintf(err, errlen, "answer %zu: %s", got + 1, why);
			bad = true;
		} else
			got++;
	}
	if (p) {
		int status = pclose(p);
		if (bad)
			;
		else if (status != 0)
			snprintf(err, errlen, "'%s' exited with status %d", b->cmd,
				 WIFEXITED(status) ? WEXITSTATUS(status) : status);
		else if (got < nlines)
			snprintf(err, errlen, "'%s' answered %zu of %zu lines", b->cmd, got, nlines);
		else
			r = 0;
	}
	free(line);
	free(shell);
	unlink(path);
	return r;
}

static int count_option(const char *option, const char *text, unsigned long lo, unsigned long hi, size_t *v)
{
	char *end;
	unsigned long x = strtoul(text, &end, 10);
	if (!*text || *end || *text == '-' || x < lo || x > hi) {
		cli_fail("probe order", "bad %s '%s' (an integer %lu..%lu)", option, text, lo, hi);
		return CLI_EXIT_USAGE;
	}
	*v = (size_t)x;
	return 0;
}

static void print_json(const struct fpref_order_report *r, const struct fpref_order_options *o)
{
	char n[24];
	snprintf(n, sizeof n, "%zu", o->n);
	printf("{\"n\": %zu, \"in\": \"%s\", \"out\": \"%s\", \"status\": ", o->n, o->in.name, o->out.name);
	cli_json_string(r->status == FPREF_ORDER_TREE ? "tree" : r->status == FPREF_ORDER_NOT_TREE ? "not a tree" : r->status == FPREF_ORDER_BOX_FAILED ? "box failed" : "error");
	printf(", \"tree\": ");
	if (r->text)
		cli_json_string(r->text);
	else
		printf("null");
	printf(", \"block_model\": ");
	if (r->status == FPREF_ORDER_TREE && r->model[0])
		cli_json_string(r->model);
	else
		printf("null");
	printf(", \"dot_args\": ");
	if (r->text) {
		const char *args[] = { "--model", "tree", "--tree", r->text, "--in-format", o->in.name, "--out-format", o->out.name };
		for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
			printf(i ? ", " : "[");
			cli_json_string(args[i]);
		}
		printf("]");
	} else
		printf("null");
	printf(", \"lines\": %zu, \"starts\": %zu, \"probe_lines\": %zu, \"verify_lines\": %zu, \"inner_nodes\": %zu, "
	       "\"block_nodes\": %zu, \"depth\": %zu, \"probe_small\": %.17g, \"probe_large\": %.17g, \"message\": ",
	       r->lines, r->batches, r->probe_lines, r->verify_lines, r->inner, r->blocks, r->depth, r->small, r->large);
	cli_json_string(r->message);
	printf("}\n");
}

int probe_order(const struct probe_order_text *t, const struct cli_options *o)
{
	const char *cmd = "probe order";
	struct fpref_order_options opt = { .seed = 20261130, .verify = 1000 };
	size_t seed = 0;
	if (!t->cmd || !t->n || !t->in) {
		cli_fail(cmd, "needs --cmd 'PROGRAM ARGS' (the black box), --n N (values per line) and --in-format FMT");
		return CLI_EXIT_USAGE;
	}
	if (count_option("--n", t->n, 2, 65536, &opt.n) || (t->verify && count_option("--verify", t->verify, 0, 100000000, &opt.verify)) ||
	    (t->batch && count_option("--batch", t->batch, 1, 1u << 20, &opt.max_batch)) ||
	    (t->seed && count_option("--seed", t->seed, 0, (unsigned long)-1, &seed)) ||
	    cli_parse_format(cmd, t->in, &opt.in) != 0 || cli_parse_format(cmd, t->out ? t->out : t->in, &opt.out) != 0)
		return CLI_EXIT_USAGE;
	if (t->seed)
		opt.seed = seed;
	fpref_env_default(&opt.env);
	char *models_text = t->tc ? strdup(t->tc) : NULL;
	const char *models[64];
	if (t->tc) {
		for (char *s = strtok(models_text, ","); s && opt.nmodels < 64; s = strtok(NULL, ","))
			models[opt.nmodels++] = s;
		opt.models = models;
	}
	struct cmd_box box = { t->cmd, &opt.in, &opt.out };
	struct fpref_order_report r;
	enum fpref_order_status st = fpref_golden_reveal_order(&opt, cmd_box_run, &box, &r);
	if (o->json)
		print_json(&r, &opt);
	else if (st == FPREF_ORDER_TREE) {
		char *text = fpref_golden_order_report_text(&r, &opt);
		if (text)
			fputs(text, stdout);
		else
			cli_fail(cmd, "out of memory");
		free(text);
	}
	if (st != FPREF_ORDER_TREE)
		cli_fail(cmd, "%s%s (after %zu black-box lines in %zu starts)",
			 st == FPREF_ORDER_NOT_TREE ? "no fixed summation tree: " : "", r.message, r.lines, r.batches);
	fpref_golden_order_report_free(&r);
	free(models_text);
	return st == FPREF_ORDER_TREE ? CLI_EXIT_OK : st == FPREF_ORDER_ERROR ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}
