/* fpref policy: the published autocast / AMP op lists (formats/policy.c),
 * or which precision one op runs in under each policy. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct policy_text {
	const char *framework, *op;
	bool json;
};

static const struct cli_opt policy_opts[] = {
	{ "--framework", CLI_VALUE, "pytorch-cuda|pytorch-cpu|nvidia-amp|tpu-bf16|intel-bf16", "all",
	  "the policy to show", offsetof(struct policy_text, framework), 0 },
	{ "--op", CLI_VALUE, "NAME", NULL, "only this op: its list and precision under each policy",
	  offsetof(struct policy_text, op), 0 },
	{ "--json", CLI_FLAG, NULL, NULL, "one JSON document on stdout", offsetof(struct policy_text, json), 0 },
};

static bool listed_anywhere(const char *op)
{
	for (size_t i = 0; i < fpref_policy_count(); i++)
		if (fpref_policy_lookup(fpref_policy_at(i), op))
			return true;
	return false;
}

static void lower_copy(const char *s, char *out, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

/* Whether two op names share their first four letters, or one holds the
 * other (Tanh in gelu_tanh, Softmax and softmax), in any case; names
 * shorter than four letters (tan, Elu) are in too many to say anything. */
static bool looks_alike(const char *a, const char *b)
{
	char x[128], y[128];
	lower_copy(a, x, sizeof x);
	lower_copy(b, y, sizeof y);
	size_t nx = strlen(x), ny = strlen(y);
	if ((ny >= 4 && strstr(x, y)) || (nx >= 4 && strstr(y, x)))
		return true;
	return nx >= 4 && ny >= 4 && strncmp(x, y, 4) == 0;
}

/* The listed ops that look like op, each once, comma-separated in near. */
static void near_names(const char *op, char *near, size_t size)
{
	*near = '\0';
	size_t used = 0;
	for (size_t i = 0; i < fpref_policy_count(); i++) {
		const struct fpref_policy *p = fpref_policy_at(i);
		for (size_t k = 0; k < p->nlists; k++)
			for (size_t j = 0; j < p->lists[k].count; j++) {
				const char *name = p->lists[k].ops[j];
				size_t n = strlen(name);
				if (!looks_alike(op, name) || used + n + 3 >= size)
					continue;
				bool again = false;
				for (const char *q = near; (q = strstr(q, name)) != NULL; q += n)
					if ((q == near || q[-1] == ' ') && (q[n] == ',' || q[n] == '\0'))
						again = true;
				if (again)
					continue;
				used += (size_t)snprintf(near + used, size - used, "%s%s", used ? ", " : "", name);
			}
	}
}

static int cmd_policy(int argc, char **argv);

const struct cli_command cli_cmd_policy = {
	.name = "policy",
	.synopsis = "[--framework pytorch-cuda|pytorch-cpu|nvidia-amp|tpu-bf16|intel-bf16] [--op NAME] [--json]",
	.summary = "The published mixed-precision op lists (PyTorch autocast, TF-AMP, TPU and Intel BF16), each with\n"
		   "its source; --op: which precision an op runs in under each policy (docs/lab.md).",
	.details = "Op names are the frameworks' own spellings (linear, mse_loss, MatMul, Softmax), case-sensitive.\n",
	.opts = policy_opts,
	.nopts = CLI_NOPTS(policy_opts),
	.max_positional = 0,
	.examples = { "fpref policy --framework pytorch-cuda", "fpref policy --op softmax" },
	.run = cmd_policy,
};

static void put_list_json(const struct fpref_policy_list *l)
{
	printf("{\"list\": ");
	cli_json_string(l->name);
	printf(", \"precision\": ");
	cli_json_string(l->precision);
	printf(", \"count\": %zu, \"source\": ", l->count);
	cli_json_string(l->source);
	printf(", \"ops\": [");
	for (size_t i = 0; i < l->count; i++) {
		printf(i ? ", " : "");
		cli_json_string(l->ops[i]);
	}
	printf("]}");
}

static void put_policy(const struct fpref_policy *p, bool json)
{
	if (json) {
		printf("{\"framework\": \"%s\", \"summary\": ", p->framework);
		cli_json_string(p->summary);
		printf(", \"unlisted\": ");
		cli_json_string(p->unlisted);
		printf(", \"lists\": [");
		for (size_t l = 0; l < p->nlists; l++) {
			printf(l ? ", " : "");
			put_list_json(&p->lists[l]);
		}
		printf("]}");
		return;
	}
	printf("%s: %s\n", p->framework, p->summary);
	for (size_t l = 0; l < p->nlists; l++) {
		const struct fpref_policy_list *x = &p->lists[l];
		printf("  %s (%zu ops): %s\n    source: %s\n    ", x->name, x->count, x->precision, x->source);
		for (size_t i = 0; i < x->count; i++)
			printf("%s%s", x->ops[i], i + 1 < x->count ? ", " : "\n");
	}
	printf("  unlisted: %s\n", p->unlisted);
}

static void put_op(const struct fpref_policy *p, const char *op, bool json)
{
	const struct fpref_policy_list *l = fpref_policy_lookup(p, op);
	if (json) {
		printf("{\"framework\": \"%s\", \"op\": ", p->framework);
		cli_json_string(op);
		printf(", \"list\": ");
		if (l)
			cli_json_string(l->name);
		else
			printf("null");
		printf(", \"precision\": ");
		cli_json_string(l ? l->precision : p->unlisted);
		printf(", \"source\": ");
		if (l)
			cli_json_string(l->source);
		else
			printf("null");
		printf("}");
		return;
	}
	printf("%-13s %-9s %s\n", p->framework, l ? l->name : "unlisted", l ? l->precision : p->unlisted);
}

static int cmd_policy(int argc, char **argv)
{
	struct policy_text a;
	memset(&a, 0, sizeof a);
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_policy, argc, argv, &o, &a);
	if (r)
		return r;
	const struct fpref_policy *only = NULL;
	if (a.framework && !(only = fpref_policy_find(a.framework))) {
		cli_fail(cli_cmd_policy.name, "unknown framework '%s' (pytorch-cuda, pytorch-cpu, nvidia-amp, tpu-bf16, "
					      "intel-bf16)", a.framework);
		return CLI_EXIT_USAGE;
	}
	if (a.op && !listed_anywhere(a.op)) {
		/* an op no framework lists is most often a misspelling: an answer of
		 * "unlisted" everywhere would read as a fact about the op */
		char near[512];
		near_names(a.op, near, sizeof near);
		cli_fail(cli_cmd_policy.name,
			 "no framework lists an op '%s' (names are the frameworks' own, case-sensitive%s%s); an op that "
			 "is on no list runs as each framework runs its unlisted ops: the 'unlisted' lines of fpref policy",
			 a.op, *near ? "; listed ops that look alike: " : "", near);
		return CLI_EXIT_USAGE;
	}
	if (a.json)
		printf(a.op ? "{\"op\": [" : "{\"policies\": [");
	bool first = true;
	for (size_t i = 0; i < fpref_policy_count(); i++) {
		const struct fpref_policy *p = fpref_policy_at(i);
		if (only && p != only)
			continue;
		if (a.json && !first)
			printf(", ");
		first = false;
		if (a.op)
			put_op(p, a.op, a.json);
		else
			put_policy(p, a.json);
	}
	if (a.json)
		printf("]}\n");
	return CLI_EXIT_OK;
}
