#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("fpref: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_parse_format(const char *text, struct fpref_format *f)
{
	char err[1024];
	if (fpref_format_parse(text, f, err, sizeof err) != 0) {
		cli_error("%s", err);
		return -1;
	}
	return 0;
}

void cli_hex(const struct fpref_format *f, uint64_t bits, char *buf, size_t len)
{
	fpref_format_hex(f, bits, buf, len);
}

int cli_parse_bits(const struct fpref_format *f, const char *text, uint64_t *bits, char *err, size_t errlen)
{
	return fpref_format_parse_bits(f, text, bits, err, errlen);
}

int cli_take_options(int argc, char **argv, const char *const *names, const char ***slots, size_t count, char **rest,
		     int *nrest)
{
	*nrest = 0;
	for (int i = 0; i < argc; i++) {
		size_t j = 0;
		while (j < count && strcmp(argv[i], names[j]) != 0)
			j++;
		if (j == count)
			rest[(*nrest)++] = argv[i];
		else if (i + 1 < argc)
			*slots[j] = argv[++i];
		else {
			cli_error("option %s needs a value", argv[i]);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
}

void cli_put(FILE *out, char *s)
{
	fputs(s ? s : "?", out);
	free(s);
}

static bool looks_like_number(const char *s)
{
	if (s[0] != '-')
		return true;
	return isdigit((unsigned char)s[1]) || s[1] == '.' || strncasecmp(s + 1, "inf", 3) == 0 ||
	       strncasecmp(s + 1, "nan", 3) == 0 || strncasecmp(s + 1, "snan", 4) == 0 ||
	       strncasecmp(s + 1, "qnan", 4) == 0;
}

static const char *take_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		cli_error("option %s needs a value", argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

int cli_parse(int argc, char **argv, unsigned allowed, struct cli_options *o)
{
	memset(o, 0, sizeof *o);
	fpref_env_default(&o->env);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v;
		char err[256];
		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++) {
				if (o->npositional == CLI_MAX_POSITIONAL) {
					cli_error("too many values (at most %d)", CLI_MAX_POSITIONAL);
					return CLI_EXIT_USAGE;
				}
				o->positional[o->npositional++] = argv[i];
			}
			break;
		}
		if (looks_like_number(a) || a[1] != '-') {
			if (a[0] == '-' && !looks_like_number(a)) {
				cli_error("unknown option '%s'", a);
				return CLI_EXIT_USAGE;
			}
			if (o->npositional == CLI_MAX_POSITIONAL) {
				cli_error("too many values (at most %d)", CLI_MAX_POSITIONAL);
				return CLI_EXIT_USAGE;
			}
			o->positional[o->npositional++] = a;
			continue;
		}
		if (((allowed & CLI_TO) && strcmp(a, "--to") == 0) || ((allowed & CLI_FMT) && strcmp(a, "--fmt") == 0)) {
			if (!(v = take_value(argc, argv, &i)) || cli_parse_format(v, &o->to) != 0)
				return CLI_EXIT_USAGE;
			o->have_to = true;
		} else if ((allowed & CLI_FROM) && strcmp(a, "--from") == 0) {
			if (!(v = take_value(argc, argv, &i)) || cli_parse_format(v, &o->from) != 0)
				return CLI_EXIT_USAGE;
			o->have_from = true;
		} else if ((allowed & CLI_ENGINE) && strcmp(a, "--engine") == 0) {
			if (!(v = take_value(argc, argv, &i)))
				return CLI_EXIT_USAGE;
			if (strcmp(v, "emu") == 0)
				o->engine = CLI_ENGINE_EMU;
			else if (strcmp(v, "ref") == 0)
				o->engine = CLI_ENGINE_REF;
			else {
				cli_error("unknown engine '%s' (choices: emu, the integer emulator; ref, the MPFR oracle)", v);
				return CLI_EXIT_USAGE;
			}
		} else if ((allowed & CLI_JSON) && strcmp(a, "--json") == 0) {
			o->json = true;
		} else if ((allowed & CLI_ENV) && strcmp(a, "--round") == 0) {
			if (!(v = take_value(argc, argv, &i)))
				return CLI_EXIT_USAGE;
			o->have_round = true;
			if (fpref_rounding_parse(v, &o->env.rounding) != 0) {
				cli_error("unknown rounding mode '%s' (choices: %s)", v, fpref_rounding_choices());
				return CLI_EXIT_USAGE;
			}
		} else if ((allowed & CLI_ENV) && strcmp(a, "--sat") == 0) {
			o->env.overflow = FPREF_OVERFLOW_SAT;
			o->have_overflow = true;
		} else if ((allowed & CLI_ENV) && strcmp(a, "--profile") == 0) {
			if (!(v = take_value(argc, argv, &i)))
				return CLI_EXIT_USAGE;
			struct fpref_env probe;
			fpref_env_default(&probe);
			if (fpref_profile_apply(v, &o->to, &probe) != 0) {
				cli_error("unknown profile '%s' (choices: %s)", v, fpref_profile_choices());
				return CLI_EXIT_USAGE;
			}
			o->profile = v;
		} else if ((allowed & CLI_ENV) && strcmp(a, "--overflow") == 0) {
			if (!(v = take_value(argc, argv, &i)))
				return CLI_EXIT_USAGE;
			o->have_overflow = true;
			if (strcmp(v, "ieee") == 0)
				o->env.overflow = FPREF_OVERFLOW_IEEE;
			else if (strcmp(v, "sat") == 0)
				o->env.overflow = FPREF_OVERFLOW_SAT;
			else {
				cli_error("unknown overflow policy '%s' (choices: ieee, sat)", v);
				return CLI_EXIT_USAGE;
			}
		} else if ((allowed & CLI_ENV) && strcmp(a, "--ftz") == 0) {
			o->env.ftz = true;
		} else if ((allowed & CLI_ENV) && strcmp(a, "--daz") == 0) {
			o->env.daz = true;
		} else if ((allowed & CLI_ENV) && strcmp(a, "--tininess") == 0) {
			if (!(v = take_value(argc, argv, &i)))
				return CLI_EXIT_USAGE;
			if (strcmp(v, "before") == 0)
				o->env.tininess = FPREF_TININESS_BEFORE;
			else if (strcmp(v, "after") == 0)
				o->env.tininess = FPREF_TININESS_AFTER;
			else {
				cli_error("unknown tininess '%s' (choices: before, after)", v);
				return CLI_EXIT_USAGE;
			}
		} else if ((allowed & CLI_ENV) && strcmp(a, "--sr-bits") == 0) {
			if (!(v = take_value(argc, argv, &i)))
				return CLI_EXIT_USAGE;
			if (fpref_env_parse_sr(v, &o->env, err, sizeof err) != 0) {
				cli_error("%s", err);
				return CLI_EXIT_USAGE;
			}
		} else {
			cli_error("unknown option '%s'", a);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
}

struct fpref_env cli_target_env(const struct cli_options *o, const struct fpref_format *target)
{
	struct fpref_env env = o->env;
	if (o->profile) {
		fpref_profile_apply_conversion(o->profile, o->have_from ? &o->from : NULL, target, &env);
		if (o->have_round)
			env.rounding = o->env.rounding;
		if (o->have_overflow)
			env.overflow = o->env.overflow;
	}
	return env;
}

struct cli_json_num cli_json_num(double x)
{
	struct cli_json_num n;
	if (isfinite(x))
		snprintf(n.text, sizeof n.text, "%.17g", x);
	else
		snprintf(n.text, sizeof n.text, "null");
	return n;
}

void cli_json_string(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

FILE *cli_open_input(const char *path, int *status)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	const char *why = !f ? strerror(errno) : fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode) ? "is a directory" : NULL;
	if (!why)
		return f;
	cli_error("%s: %s", path, why); /* fopen takes a directory, and reading it fails later as EISDIR */
	if (f)
		fclose(f);
	*status = CLI_EXIT_USAGE;
	return NULL;
}

struct cli_json_num cli_text_num(double x, int digits)
{
	struct cli_json_num n;
	if (isfinite(x))
		snprintf(n.text, sizeof n.text, "%.*g", digits, x);
	else
		snprintf(n.text, sizeof n.text, "n/a");
	return n;
}
