/* Suites: the data that says which golden files to make, read and expanded
 * into one job per file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden.h"
#include "fpref_golden_mutants.h"
#include "fpref_golden_sweep.h"
#include "parse_internal.h"

int fpref_golden_env_parse(const char *text, const struct fpref_format *source, const struct fpref_format *target,
			   struct fpref_env *env, char *err, size_t errlen)
{
	fpref_env_default(env);
	char copy[96];
	if (snprintf(copy, sizeof copy, "%s", text) >= (int)sizeof copy) {
		snprintf(err, errlen, "environment '%s' too long", text);
		return -1;
	}
	/* a profile first, so that the words after it override it */
	for (char *save = NULL, *w = strtok_r(copy, "+", &save); w; w = strtok_r(NULL, "+", &save))
		if (fpref_profile_apply_conversion(w, source, target, env) == 0)
			break;
	snprintf(copy, sizeof copy, "%s", text);
	for (char *save = NULL, *w = strtok_r(copy, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
		enum fpref_rounding r;
		struct fpref_env probe;
		char *bits = strchr(w, '=');
		if (bits) {
			/* a stochastic mode with its random bits, one word: "sr=4:7",
			 * "srb=13:seed=5" (fpref_env_parse_sr's spellings); the R of
			 * input i is fpref_env_sr_random(env, i), so a sweep is
			 * deterministic (campaigns only: check_job) */
			*bits++ = '\0';
			struct fpref_env mode = *env;
			if (fpref_env_parse_rounding(w, &mode) != 0 || mode.rounding != FPREF_SR) {
				snprintf(err, errlen, "'%s=%s' in '%s': only a stochastic mode (sr, sra, srb, src) takes '=BITS'", w,
					 bits, text);
				return -1;
			}
			if (fpref_env_parse_sr(bits, &mode, err, errlen) != 0)
				return -1;
			*env = mode;
		} else if (fpref_rounding_parse(w, &r) == 0 && r != FPREF_SR)
			env->rounding = r;
		else if (strcmp(w, "sat") == 0 || strcmp(w, "satfinite") == 0 || strcmp(w, "satpropagate") == 0 ||
			 strcmp(w, "satnone") == 0)
			fpref_env_parse_overflow(w, env); /* P3109's policies beside sat */
		else if (strcmp(w, "ftz") == 0)
			env->ftz = true;
		else if (strcmp(w, "daz") == 0)
			env->daz = true;
		else if (strcmp(w, "before") == 0)
			env->tininess = FPREF_TININESS_BEFORE;
		else if (fpref_profile_apply(w, target, &probe) != 0) {
			snprintf(err, errlen,
				 "unknown environment word '%s' in '%s' (a rounding mode, sr=BITS in campaigns, sat, "
				 "satpropagate, satnone, ftz, daz, before, or a profile: %s)", w, text, fpref_profile_choices());
			return -1;
		}
	}
	return 0;
}

/* The next item of a comma-separated list, at *p: a comma inside [brackets]
 * does not split, so "[e5m3,subnormals=off],float16" is two formats; the
 * brackets are taken off.  NULL at the end, or on an unclosed bracket. */
static char *next_item(char **p, bool *bad)
{
	char *s = *p;
	if (!s || !*s)
		return NULL;
	if (*s == '[') {
		char *close = strchr(s, ']');
		if (!close || (close[1] != ',' && close[1] != '\0')) {
			*bad = true;
			return NULL;
		}
		*close = '\0';
		*p = close[1] ? close + 2 : close + 1;
		return s + 1;
	}
	char *comma = strchr(s, ',');
	if (comma)
		*comma = '\0';
	*p = comma ? comma + 1 : s + strlen(s);
	return s;
}

/* The P3109 formats of K <= 8 bits (group "p3109"): K 3..8, signed P
 * 1..K-1, unsigned P 1..K, each extended and finite: 120. */
static int p3109_group(struct fpref_format *out, size_t max, size_t *n, char *err, size_t errlen)
{
	for (int k = 3; k <= 8; k++)
		for (int u = 0; u < 2; u++)
			for (int p = 1; p <= (u ? k : k - 1); p++)
				for (int d = 0; d < 2; d++) {
					char name[32];
					snprintf(name, sizeof name, "binary%dp%d%c%c", k, p, u ? 'u' : 's', d ? 'f' : 'e');
					if (*n == max) {
						snprintf(err, errlen, "too many formats");
						return -1;
					}
					if (fpref_format_parse(name, &out[*n], err, errlen) != 0)
						return -1;
					(*n)++;
				}
	return 0;
}

/* One item of a format list (text, for messages) into out[*n...]: a group
 * ("all", the catalogue; "narrow", its formats of 8 bits or fewer;
 * "upto16", of 16 bits or fewer; "p3109", p3109_group) or a name. */
static int list_item(const char *text, const char *w, struct fpref_format *out, size_t max, size_t *n, char *err,
		     size_t errlen)
{
	bool all = strcmp(w, "all") == 0, narrow = strcmp(w, "narrow") == 0, upto16 = strcmp(w, "upto16") == 0;
	if (all || narrow || upto16) {
		for (size_t i = 0; i < fpref_format_count() && *n < max; i++)
			if (all || fpref_format_container_bits(fpref_format_at(i)) <= (narrow ? 8 : 16))
				out[(*n)++] = *fpref_format_at(i);
		return 0;
	}
	if (strcmp(w, "p3109") == 0)
		return p3109_group(out, max, n, err, errlen);
	if (*n == max) {
		snprintf(err, errlen, "too many formats in '%s'", text);
		return -1;
	}
	if (fpref_format_parse(w, &out[*n], err, errlen) != 0) {
		/* an option split from its format (the format before it reads as a bare eXmY) */
		if (strchr(w, '=') || strcmp(w, "unsigned") == 0 || strchr(text, '=') || strstr(text, "unsigned")) {
			size_t used = strlen(err);
			snprintf(err + used, errlen - used, "; a format with options goes in brackets: [e5m3,subnormals=off]");
		}
		return -1;
	}
	(*n)++;
	return 0;
}

/* The formats a list names, item by item (list_item).  With pair (a dot
 * line's INPUTS), an item A*B names A's format (out) and B's (pair) apart;
 * every other item is its own B. */
static int format_list(const char *text, struct fpref_format *out, struct fpref_format *pair, size_t max, size_t *n,
		       char *err, size_t errlen)
{
	*n = 0;
	char copy[1024], *rest = copy, *w;
	bool unclosed = false;
	snprintf(copy, sizeof copy, "%s", text);
	while ((w = next_item(&rest, &unclosed)) != NULL) {
		if (!*w)
			continue;
		size_t before = *n;
		char *star = pair ? strchr(w, '*') : NULL;
		if (star)
			*star = '\0';
		if (list_item(text, w, out, max, n, err, errlen) != 0)
			return -1;
		if (star && (*n != before + 1 || fpref_format_parse(star + 1, &pair[before], err, errlen) != 0)) {
			if (*n != before + 1)
				snprintf(err, errlen, "'%s*%s': a pair names one format on each side", w, star + 1);
			return -1;
		}
		for (size_t i = before; pair && !star && i < *n; i++)
			pair[i] = out[i];
	}
	if (unclosed) {
		snprintf(err, errlen, "'%s': a '[' without its ']' (or text after it before the next comma)", text);
		return -1;
	}
	return 0;
}

static int generator(const char *text, bool dot, struct fpref_golden_job *j, char *err, size_t errlen)
{
	j->exhaustive = strcmp(text, "exhaustive") == 0;
	j->edge = strcmp(text, "edge") == 0 || strncmp(text, "edge+", 5) == 0;
	const char *r = strncmp(text, "edge+", 5) == 0 ? text + 5 : text;
	j->random_count = 0;
	j->K = 0;
	j->probe = dot && strncmp(text, "probe:", 6) == 0;
	j->cases = dot && strncmp(text, "cases:", 6) == 0;
	if (j->probe || j->cases) {
		char *end;
		errno = 0;
		j->K = (unsigned)strtoul(text + 6, &end, 10);
		if (*end || errno || j->K < 1 || j->K > 512)
			goto bad;
		return 0;
	}
	if (strncmp(r, "random:", 7) == 0) {
		char *end;
		errno = 0;
		j->random_count = strtoul(r + 7, &end, 10);
		if (dot && *end == ':')
			j->K = (unsigned)strtoul(end + 1, &end, 10);
		if (*end || errno || j->random_count == 0 || j->random_count > 100000000 || (dot && (j->K < 1 || j->K > 512)))
			goto bad;
	} else if (!j->exhaustive && strcmp(text, "edge") != 0)
		goto bad;
	if (dot != (j->K > 0))
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "bad generator '%s' (%s)", text,
		 dot ? "random:N:K, with N cases of K products, probe:K or cases:K; K at most 512"
		     : "exhaustive, edge, random:N or edge+random:N");
	return -1;
}

/* The job's file name, and its own seed: the suite's mixed with the name
 * (FNV-1a), so that files do not share a stream. */
static void job_path(struct fpref_golden_job *j)
{
	switch (j->kind) {
	case FPREF_GOLDEN_CONVERT:
		snprintf(j->path, sizeof j->path, "convert/%s-%s.%s.txt", j->in.name, j->out.name, j->env_text);
		break;
	case FPREF_GOLDEN_OP:
		snprintf(j->path, sizeof j->path, "%s/%s.%s.txt", fpref_op_name(j->op), j->in.name, j->env_text);
		break;
	case FPREF_GOLDEN_DOT:
		if (fpref_format_same(&j->in, &j->in_b))
			snprintf(j->path, sizeof j->path, "dot/%s.%s-%s.txt", j->model.gpu, j->in.name, j->out.name);
		else /* two formats: A's x B's */
			snprintf(j->path, sizeof j->path, "dot/%s.%s-x-%s-%s.txt", j->model.gpu, j->in.name, j->in_b.name,
				 j->out.name);
		break;
	case FPREF_GOLDEN_E8M0: {
		char rule[64];
		fpref_e8m0_rule_spelling(&j->e8m0, rule, sizeof rule);
		snprintf(j->path, sizeof j->path, "e8m0/%s.%s.txt", rule, j->out.name);
		break;
	}
	}
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = j->path; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	j->seed ^= h;
}

/* Whether the generator can run: exhaustive sweeps only where they fit. */
static int check_job(const struct fpref_golden_job *j, bool campaign, char *err, size_t errlen)
{
	int width = fpref_format_width(&j->in);
	int arity = j->kind == FPREF_GOLDEN_OP ? fpref_op_arity(j->op) : 1;
	/* a campaign streams its inputs chunk by chunk and keeps none: up to
	 * 2^40 of them per job */
	int limit = campaign ? 40 / arity : arity == 1 ? 20 : arity == 2 ? 8 : 6;
	if (!campaign && (j->env.rounding == FPREF_SR || j->env.sat_keep_inf || j->env.p3109_sat_none)) {
		/* golden files carry no random bits per vector, and their
		 * headers spell the overflow policy as ieee or sat */
		snprintf(err, errlen, "'%s': stochastic rounding, satpropagate and satnone are for campaigns", j->env_text);
		return -1;
	}
	if (campaign && !j->exhaustive) {
		snprintf(err, errlen, "a campaign sweeps every input: its generator is 'exhaustive'");
		return -1;
	}
	if (j->exhaustive && width > limit) {
		snprintf(err, errlen, "exhaustive %s of %s: %d-bit operands, at most %d bits for %d operand%s",
			 j->kind == FPREF_GOLDEN_OP ? fpref_op_name(j->op) : "conversion", j->in.name, width, limit, arity,
			 arity > 1 ? "s" : "");
		return -1;
	}
	if (j->kind == FPREF_GOLDEN_OP && j->in.man_bits > FPREF_OP_MAX_MAN_BITS) {
		snprintf(err, errlen, "%s: arithmetic is for formats of up to %d fraction bits", j->in.name,
			 FPREF_OP_MAX_MAN_BITS);
		return -1;
	}
	return 0;
}

static int add_job(struct fpref_golden_suite *s, const struct fpref_golden_job *j, size_t *cap)
{
	if (s->njobs == *cap) {
		size_t bigger = *cap ? 2 * *cap : 64;
		struct fpref_golden_job *more = realloc(s->jobs, bigger * sizeof *more);
		if (!more)
			return -1;
		s->jobs = more;
		*cap = bigger;
	}
	s->jobs[s->njobs++] = *j;
	return 0;
}

/* Job j (its formats set) under environment `env` (for a conversion from
 * source; NULL: an operation), checked and added. */
static int add_in_env(struct fpref_golden_suite *s, struct fpref_golden_job *j, const struct fpref_format *source,
		      const char *env, size_t *cap, char *err, size_t errlen)
{
	snprintf(j->env_text, sizeof j->env_text, "%s", env);
	if (fpref_golden_env_parse(env, source, &j->out, &j->env, err, errlen) != 0 ||
	    check_job(j, s->campaign, err, errlen) != 0)
		return -1;
	job_path(j);
	return add_job(s, j, cap);
}

#define MAX_LIST 160 /* formats per list: the p3109 group and more */
#define MAX_ENVS 1024 /* environments per line */
#define ENV_TEXT (sizeof ((struct fpref_golden_job *)0)->env_text)

/* The environments an ENVS list names.  Each comma-separated item is a
 * '+'-joined chain whose words may be '|'-separated alternatives, and
 * stands for their product, the first word varying slowest:
 * "rne|rtz+|sat" is rne, rne+sat, rtz, rtz+sat (an empty alternative is
 * no word).  The texts into *out (malloc'ed), *n of them; 0, or -1. */
static int env_list(const char *text, char (**out)[ENV_TEXT], size_t *n, char *err, size_t errlen)
{
	char copy[2048];
	snprintf(copy, sizeof copy, "%s", text);
	*n = 0;
	*out = malloc(MAX_ENVS * sizeof **out);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		enum { PARTS = 8, ALTS = 32 };
		const char *alt[PARTS][ALTS];
		size_t nalt[PARTS] = { 0 }, nparts = 0, pick[PARTS] = { 0 };
		for (char *s2 = NULL, *part = strtok_r(item, "+", &s2); part; part = strtok_r(NULL, "+", &s2)) {
			if (nparts == PARTS) {
				snprintf(err, errlen, "environment '%s': more than %d words", text, PARTS);
				return -1;
			}
			/* split at each '|', not as strtok does: "|sat" has an empty first alternative */
			for (char *a = part; a; a = strchr(a, '|') ? strchr(a, '|') + 1 : NULL) {
				if (nalt[nparts] == ALTS) {
					snprintf(err, errlen, "environment '%s': more than %d alternatives", text, ALTS);
					return -1;
				}
				alt[nparts][nalt[nparts]++] = a;
			}
			for (char *bar = strchr(part, '|'); bar; bar = strchr(bar + 1, '|'))
				*bar = '\0';
			nparts++;
		}
		for (;;) {
			char env[ENV_TEXT];
			size_t used = 0;
			env[0] = '\0';
			for (size_t k = 0; k < nparts; k++) {
				const char *w = alt[k][pick[k]];
				if (!*w)
					continue;
				int m = snprintf(env + used, sizeof env - used, "%s%s", used ? "+" : "", w);
				if (m < 0 || (size_t)m >= sizeof env - used) {
					snprintf(err, errlen, "environment '%s...' too long", env);
					return -1;
				}
				used += (size_t)m;
			}
			if (!used) {
				snprintf(err, errlen, "an empty environment in '%s'", text);
				return -1;
			}
			if (*n == MAX_ENVS) {
				snprintf(err, errlen, "more than %d environments in '%s'", MAX_ENVS, text);
				return -1;
			}
			memcpy((*out)[(*n)++], env, sizeof env);
			size_t k = nparts; /* the odometer: the last word fastest */
			while (k > 0 && ++pick[k - 1] == nalt[k - 1])
				pick[--k] = 0;
			if (k == 0)
				break;
		}
	}
	return 0;
}

/* A campaign's "scale RULES ELEMENTS GEN": each rule ("all": every row,
 * from FP32 and through BF16) on every FP32 pattern, with each element
 * where the rule reads one. */
static int expand_e8m0(struct fpref_golden_suite *s, char **w, size_t *cap, char *err, size_t errlen)
{
	struct fpref_golden_job proto = { 0 };
	proto.kind = FPREF_GOLDEN_E8M0;
	proto.seed = s->seed;
	if (generator(w[3], false, &proto, err, errlen) != 0)
		return -1;
	struct fpref_e8m0_rule rules[128];
	size_t nrules = 0;
	char copy[1024];
	snprintf(copy, sizeof copy, "%s", w[1]);
	for (char *save = NULL, *r = strtok_r(copy, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		bool all = strcmp(r, "all") == 0;
		for (size_t i = 0; i < (all ? fpref_e8m0_rule_count() : 1); i++)
			for (int bf16 = 0; bf16 < (all ? 2 : 1); bf16++) {
				if (nrules == sizeof rules / sizeof rules[0]) {
					snprintf(err, errlen, "too many rules in '%s'", w[1]);
					return -1;
				}
				if (all) {
					rules[nrules] = *fpref_e8m0_rule_at(i);
					rules[nrules].source = bf16 ? FPREF_FORMAT_BFLOAT16 : FPREF_FORMAT_FLOAT32;
				} else if (fpref_e8m0_rule_parse(r, &rules[nrules], err, errlen) != 0)
					return -1;
				nrules++;
			}
	}
	struct fpref_format elements[MAX_LIST];
	size_t nel = 0;
	if (format_list(w[2], elements, NULL, MAX_LIST, &nel, err, errlen) != 0)
		return -1;
	for (size_t r = 0; r < nrules; r++) {
		bool takes = fpref_e8m0_rule_needs_element(&rules[r]);
		for (size_t e = 0; e < (takes ? nel : 1); e++) {
			struct fpref_golden_job j = proto;
			j.e8m0 = rules[r];
			j.in = *fpref_format_get(FPREF_FORMAT_FLOAT32);
			j.out = takes ? elements[e] : *fpref_format_get(FPREF_FORMAT_FLOAT8_E8M0FNU);
			fpref_env_default(&j.env);
			snprintf(j.env_text, sizeof j.env_text, "rule");
			if (takes && fpref_e8m0_element_check(&j.out, err, errlen) != 0)
				return -1;
			if (check_job(&j, true, err, errlen) != 0)
				return -1;
			job_path(&j);
			if (add_job(s, &j, cap) != 0)
				return -1;
		}
	}
	return 0;
}

/* One suite line's jobs. */
static int expand(struct fpref_golden_suite *s, char **w, int n, size_t *cap, char *err, size_t errlen)
{
	if (strcmp(w[0], "scale") == 0) {
		if (!s->campaign || n != 4) {
			snprintf(err, errlen, "'scale RULES ELEMENTS exhaustive' is a campaign's line");
			return -1;
		}
		return expand_e8m0(s, w, cap, err, errlen);
	}
	bool dot = strcmp(w[0], "dot") == 0, convert = strcmp(w[0], "convert") == 0, op = strcmp(w[0], "op") == 0;
	if (dot && s->campaign) {
		snprintf(err, errlen, "a campaign has convert and op lines, not dot");
		return -1;
	}
	if ((!dot && !convert && !op) || n != 5) {
		snprintf(err, errlen, "expected 'convert FROMS TOS ENVS GEN', 'op OPS FORMATS ENVS GEN' or "
				      "'dot GPUS INPUTS OUTPUTS GEN'");
		return -1;
	}
	struct fpref_golden_job proto = { 0 };
	proto.seed = s->seed;
	if (generator(w[4], dot, &proto, err, errlen) != 0)
		return -1;
	struct fpref_format a[MAX_LIST], b[MAX_LIST], a_b[MAX_LIST] = { 0 }; /* a_b: a dot's B formats beside a */
	size_t na = 0, nb = 0;
	if (convert || dot) {
		if (format_list(w[dot ? 2 : 1], a, dot ? a_b : NULL, MAX_LIST, &na, err, errlen) != 0 ||
		    format_list(w[dot ? 3 : 2], b, NULL, MAX_LIST, &nb, err, errlen) != 0)
			return -1;
	}
	char(*envs)[ENV_TEXT] = NULL;
	size_t nenvs = 0;
	if (!dot && env_list(w[3], &envs, &nenvs, err, errlen) != 0) {
		free(envs);
		return -1;
	}
	if (convert) {
		proto.kind = FPREF_GOLDEN_CONVERT;
		for (size_t i = 0; i < na; i++)
			for (size_t k = 0; k < nb; k++)
				for (size_t e = 0; e < nenvs; e++) {
					struct fpref_golden_job j = proto;
					j.in = a[i];
					j.out = b[k];
					if (add_in_env(s, &j, &j.in, envs[e], cap, err, errlen) != 0) {
						free(envs);
						return -1;
					}
				}
		free(envs);
		return 0;
	}
	if (dot) {
		proto.kind = FPREF_GOLDEN_DOT;
		size_t before = s->njobs;
		char copy[1024];
		snprintf(copy, sizeof copy, "%s", w[1]);
		for (char *save = NULL, *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save))
			for (size_t i = 0; i < na; i++)
				for (size_t k = 0; k < nb; k++) {
					const struct fpref_tc_model *m = fpref_tc_model_find_pair(g, &a[i], &a_b[i]);
					if (!fpref_format_is(&b[k], FPREF_FORMAT_FLOAT32) && !fpref_format_is(&b[k], FPREF_FORMAT_FLOAT16)) {
						snprintf(err, errlen, "dot outputs are float32 or float16, not %.64s", b[k].name);
						return -1;
					}
					if (!m && !fpref_format_same(&a[i], &a_b[i]) && fpref_tc_model_find(g, &a[i])) {
						char pairs[512];
						fpref_tc_model_pairs(fpref_tc_model_find(g, &a[i]), pairs, sizeof pairs);
						snprintf(err, errlen, "%.32s takes no %.64s x %.64s (its pairs: %s)", g, a[i].name,
							 a_b[i].name, pairs);
						return -1;
					}
					if (!m || !fpref_tc_output_ok(m, &a[i], &b[k]) || !fpref_tc_output_ok(m, &a_b[i], &b[k]))
						continue; /* no such instruction on that GPU: nothing to make */
					struct fpref_golden_job j = proto;
					j.model = *m;
					j.in = a[i];
					j.in_b = a_b[i];
					j.out = b[k];
					snprintf(j.env_text, sizeof j.env_text, "model");
					fpref_env_default(&j.env);
					job_path(&j);
					if (add_job(s, &j, cap) != 0)
						return -1;
				}
		/* the case lines that follow belong to one file */
		if (proto.cases && s->njobs != before + 1) {
			snprintf(err, errlen, "a cases:K line names one model, one input and one output that the model "
					      "takes (this one makes %zu files)", s->njobs - before);
			return -1;
		}
		return 0;
	}
	proto.kind = FPREF_GOLDEN_OP;
	enum fpref_op ops[FPREF_OP_COUNT];
	size_t nops = 0;
	char copy[1024];
	snprintf(copy, sizeof copy, "%s", w[1]);
	for (char *save = NULL, *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (strcmp(o, "all") == 0) {
			for (int i = 0; i < FPREF_OP_COUNT && nops < FPREF_OP_COUNT; i++)
				ops[nops++] = (enum fpref_op)i;
		} else if (nops < FPREF_OP_COUNT && fpref_op_parse(o, &ops[nops]) == 0)
			nops++;
		else {
			snprintf(err, errlen, "unknown operation '%s' (%s, or all)", o, fpref_op_choices());
			free(envs);
			return -1;
		}
	}
	int status = format_list(w[2], a, NULL, MAX_LIST, &na, err, errlen);
	for (size_t q = 0; q < nops && status == 0; q++)
		for (size_t i = 0; i < na && status == 0; i++)
			for (size_t e = 0; e < nenvs && status == 0; e++) {
				struct fpref_golden_job j = proto;
				j.op = ops[q];
				j.in = j.out = a[i];
				status = add_in_env(s, &j, NULL, envs[e], cap, err, errlen);
			}
	free(envs);
	return status;
}

static int by_path(const void *a, const void *b)
{
	return strcmp((*(const struct fpref_golden_job *const *)a)->path, (*(const struct fpref_golden_job *const *)b)->path);
}

/* A path two jobs share, or NULL: sorted, so that a campaign's tens of
 * thousands of jobs cost n log n, not n^2.  *status -1 when out of memory. */
static const char *repeated_path(const struct fpref_golden_suite *s, int *status)
{
	const struct fpref_golden_job **order = malloc((s->njobs ? s->njobs : 1) * sizeof *order);
	if (!order) {
		*status = -1;
		return NULL;
	}
	for (size_t i = 0; i < s->njobs; i++)
		order[i] = &s->jobs[i];
	qsort(order, s->njobs, sizeof *order, by_path);
	const char *twice = NULL;
	for (size_t i = 1; i < s->njobs && !twice; i++)
		if (strcmp(order[i]->path, order[i - 1]->path) == 0)
			twice = order[i]->path;
	free(order);
	if (twice)
		*status = -1;
	return twice;
}

/* fpref_golden_sweep.h's, here rather than in sweep.c: reading a campaign
 * numbers its chunks with it, and the suite reader sits below the sweep. */
uint64_t fpref_golden_sweep_job_inputs(const struct fpref_golden_job *j)
{
	return UINT64_C(1) << (job_arity(j) * (unsigned)fpref_format_width(&j->in));
}

int fpref_golden_suite_read(const char *path, struct fpref_golden_suite *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->seed = 1;
	s->chunk_log2 = 20;
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048], msg[1024];
	unsigned long lineno = 0;
	size_t cap = 0;
	int status = 0;
	while (status == 0 && fgets(line, sizeof line, f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			/* fgets would hand the rest over as a line of its own: a long
			 * comment's tail could then add a job nobody wrote */
			snprintf(err, errlen, "%s:%lu: line too long (at most %zu characters)", path, lineno, sizeof line - 2);
			status = -1;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *w[FPREF_GOLDEN_CASE_WORDS];
		int n = 0;
		bool more = false; /* words past the last slot: refused, not dropped */
		for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && !more; t = strtok_r(NULL, " \t\r\n", &save))
			if (n < FPREF_GOLDEN_CASE_WORDS)
				w[n++] = t;
			else
				more = true;
		if (n == 0)
			continue;
		msg[0] = '\0';
		if (more) {
			snprintf(msg, sizeof msg, "more than %d words (write a run of terms as a0..a7=HEX)", FPREF_GOLDEN_CASE_WORDS);
			status = -1;
		} else if ((strcmp(w[0], "suite") == 0 || strcmp(w[0], "campaign") == 0) && n == 2 && s->njobs == 0) {
			snprintf(s->name, sizeof s->name, "%s", w[1]);
			s->campaign = w[0][0] == 'c';
		} else if (strcmp(w[0], "chunk") == 0 && n == 2 && s->campaign) {
			char *end;
			unsigned long v = strtoul(w[1], &end, 10);
			if (*end || v < 4 || v > 32) {
				snprintf(msg, sizeof msg, "bad chunk '%s' (log2 of the inputs per chunk, 4..32)", w[1]);
				status = -1;
			}
			s->chunk_log2 = (unsigned)v;
		}
		else if (strcmp(w[0], "mutant") == 0 && n == 2 && s->campaign) {
			s->mutant = fpref_golden_mutant_find(w[1]);
			if (!s->mutant) {
				snprintf(msg, sizeof msg, "no mutant '%s' (fpref mutants --list)", w[1]);
				status = -1;
			}
		} else if (strcmp(w[0], "case") == 0) {
			struct fpref_golden_job *last = s->njobs ? &s->jobs[s->njobs - 1] : NULL;
			if (!last || !last->cases) {
				snprintf(msg, sizeof msg, "a 'case' line follows a 'dot ... cases:K' line or another case");
				status = -1;
			} else
				status = fpref_golden_suite_case(last, w + 1, n - 1, msg, sizeof msg);
		} else if (strcmp(w[0], "npy") == 0 && n == 1)
			s->npy = true;
		else if (strcmp(w[0], "seed") == 0 && n == 2) {
			char *end;
			s->seed = strtoull(w[1], &end, 10);
			if (*end || w[1][0] == '-') {
				snprintf(msg, sizeof msg, "bad seed '%s'", w[1]);
				status = -1;
			}
		} else
			status = expand(s, w, n, &cap, msg, sizeof msg);
		if (status != 0)
			snprintf(err, errlen, "%s:%lu: %s", path, lineno, msg[0] ? msg : "out of memory");
	}
	fclose(f);
	if (status == 0 && !s->name[0]) {
		snprintf(err, errlen, "%s: no 'suite NAME' (or 'campaign NAME') line", path);
		status = -1;
	}
	if (status == 0 && s->njobs == 0) {
		snprintf(err, errlen, "%s: no jobs", path);
		status = -1;
	}
	for (size_t i = 0; status == 0 && i < s->njobs; i++)
		if (s->jobs[i].cases && s->jobs[i].ncases == 0) {
			snprintf(err, errlen, "%s: %s: a cases:K line without 'case' lines", path, s->jobs[i].path);
			status = -1;
		}
	for (size_t i = 0; status == 0 && s->mutant && i < s->njobs; i++)
		if (s->jobs[i].kind == FPREF_GOLDEN_E8M0 || !fpref_golden_mutant_applies(s->mutant, &s->jobs[i])) {
			/* it would change nothing there: the campaign would test nothing */
			snprintf(err, errlen, "%s: mutant %s does not apply to %s", path, s->mutant->name, s->jobs[i].path);
			status = -1;
		}
	if (status == 0) {
		const char *twice = repeated_path(s, &status);
		if (status != 0)
			snprintf(err, errlen, twice ? "%s: two jobs make %s" : "%s: out of memory", path, twice);
	}
	if (status == 0 && s->campaign) {
		s->chunk_start = malloc((s->njobs + 1) * sizeof *s->chunk_start);
		if (!s->chunk_start) {
			snprintf(err, errlen, "%s: out of memory", path);
			status = -1;
		}
		uint64_t size = UINT64_C(1) << s->chunk_log2;
		for (size_t i = 0; status == 0 && i <= s->njobs; i++)
			s->chunk_start[i] = i == 0 ? 0
						   : s->chunk_start[i - 1] +
							     (fpref_golden_sweep_job_inputs(&s->jobs[i - 1]) + size - 1) / size;
	}
	if (status != 0)
		fpref_golden_suite_free(s);
	return status;
}

void fpref_golden_suite_free(struct fpref_golden_suite *s)
{
	for (size_t i = 0; i < s->njobs; i++)
		free(s->jobs[i].case_in);
	free(s->jobs);
	free(s->chunk_start);
	s->jobs = NULL;
	s->chunk_start = NULL;
	s->njobs = 0;
}
