/* fpref policy: the published autocast / AMP op lists (formats/policy.c),
 * or which precision one op runs in under each policy. */
#include <stddef.h>
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
