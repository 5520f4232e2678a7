/* Format names: catalogue names, aliases and custom "eXmY,option=value..." spellings. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fpref_formats.h"

int fpref_format_validate(const struct fpref_format *f, char *err, size_t errlen)
{
	const char *why = NULL;
	if (f->exp_bits < 1 || f->exp_bits > 15)
		why = "exponent bits must be 1..15";
	else if (f->man_bits < 0 || f->man_bits > 62)
		why = "mantissa bits must be 0..62";
	else if (f->pad_bits < 0 || fpref_format_container_bits(f) > 64)
		why = "the format must fit in 64 bits";
	else if (f->bias < -65536 || f->bias > 65536)
		why = "bias must be within -65536..65536";
	else if (f->specials == FPREF_SPECIALS_IEEE && (f->man_bits < 1 || f->exp_bits < 2))
		why = "specials=ieee needs at least 2 exponent bits and 1 mantissa bit";
	else if (f->specials == FPREF_SPECIALS_FNUZ && !f->is_signed)
		why = "specials=fnuz puts NaN at the negative-zero pattern and needs a sign bit";
	else if (f->specials == FPREF_SPECIALS_FNUZ && !f->has_zero)
		why = "specials=fnuz needs zero=on";
	else if (!f->has_zero && f->subnormals)
		why = "zero=off leaves no room for subnormals: add subnormals=off";
	else if (!f->has_zero && f->specials == FPREF_SPECIALS_IEEE)
		why = "zero=off is only meaningful with specials fn or none";
	if (why) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void canonical_name(struct fpref_format *f)
{
	char buf[FPREF_NAME_MAX];
	int n = snprintf(buf, sizeof buf, "e%dm%d", f->exp_bits, f->man_bits);
	int default_bias = (1 << (f->exp_bits - 1)) - 1;
	if (f->bias != default_bias)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",bias=%d", f->bias);
	if (f->specials != FPREF_SPECIALS_IEEE)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",specials=%s", fpref_specials_name(f->specials));
	if (!f->subnormals)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",subnormals=off");
	if (!f->is_signed)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",unsigned");
	if (!f->has_zero)
		snprintf(buf + n, sizeof buf - (size_t)n, ",zero=off");
	memcpy(f->name, buf, sizeof buf);
}

static int parse_option(struct fpref_format *f, const char *opt, char *err, size_t errlen)
{
	const char *eq = strchr(opt, '=');
	size_t keylen = eq ? (size_t)(eq - opt) : strlen(opt);
	const char *val = eq ? eq + 1 : "";
	long n;

	if (keylen == 4 && strncmp(opt, "bias", 4) == 0 && eq) {
		if (parse_int(val, -65536, 65536, &n) == 0) {
			f->bias = (int)n;
			return 0;
		}
	} else if (keylen == 8 && strncmp(opt, "specials", 8) == 0 && eq) {
		for (int s = FPREF_SPECIALS_IEEE; s <= FPREF_SPECIALS_NONE; s++)
			if (strcmp(val, fpref_specials_name((enum fpref_specials)s)) == 0) {
				f->specials = (enum fpref_specials)s;
				return 0;
			}
	} else if (keylen == 10 && strncmp(opt, "subnormals", 10) == 0 && eq) {
		if (strcmp(val, "on") == 0 || strcmp(val, "off") == 0) {
			f->subnormals = strcmp(val, "on") == 0;
			return 0;
		}
	} else if (keylen == 4 && strncmp(opt, "zero", 4) == 0 && eq) {
		if (strcmp(val, "on") == 0 || strcmp(val, "off") == 0) {
			f->has_zero = strcmp(val, "on") == 0;
			return 0;
		}
	} else if (strcmp(opt, "unsigned") == 0) {
		f->is_signed = false;
		return 0;
	}
	snprintf(err, errlen,
		 "bad format option '%s' (choices: bias=N, specials=ieee|fn|fnuz|none, "
		 "subnormals=on|off, zero=on|off, unsigned)", opt);
	return -1;
}

static int parse_custom(const char *spelling, struct fpref_format *out, char *err, size_t errlen)
{
	char buf[256];
	if (strlen(spelling) >= sizeof buf) {
		snprintf(err, errlen, "format name too long");
		return -1;
	}
	strcpy(buf, spelling);
	char *opts = strchr(buf, ',');
	if (opts)
		*opts++ = '\0';

	int e, m, used = 0;
	if (sscanf(buf, "e%dm%d%n", &e, &m, &used) != 2 || buf[used] != '\0' || !isdigit((unsigned char)buf[1]))
		return 1; /* not a custom spelling */
	if (e < 1 || e > 15 || m < 0 || m > 62) {
		snprintf(err, errlen, "custom format '%s': exponent bits must be 1..15 and mantissa bits 0..62", spelling);
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->exp_bits = e;
	out->man_bits = m;
	out->bias = (1 << (e - 1)) - 1;
	out->is_signed = true;
	out->has_zero = true;
	out->subnormals = true;
	out->specials = FPREF_SPECIALS_IEEE;
	while (opts && *opts) {
		char *next = strchr(opts, ',');
		if (next)
			*next++ = '\0';
		if (parse_option(out, opts, err, errlen) != 0)
			return -1;
		opts = next;
	}
	char why[160];
	if (fpref_format_validate(out, why, sizeof why) != 0) {
		snprintf(err, errlen, "custom format '%s': %s", spelling, why);
		return -1;
	}
	canonical_name(out);
	return 0;
}

int fpref_format_parse(const char *spelling, struct fpref_format *out, char *err, size_t errlen)
{
	if (strchr(spelling, ',') == NULL) {
		for (size_t i = 0; i < fpref_format_count(); i++) {
			const struct fpref_format *f = fpref_format_at(i);
			if (strcasecmp(spelling, f->name) == 0 || (f->alias[0] && strcasecmp(spelling, f->alias) == 0)) {
				*out = *f;
				return 0;
			}
		}
	}
	int r = parse_custom(spelling, out, err, errlen);
	if (r <= 0)
		return r;
	int n = snprintf(err, errlen, "unknown format '%s' (choices:", spelling);
	for (size_t i = 0; i < fpref_format_count() && n > 0 && (size_t)n < errlen; i++) {
		const struct fpref_format *f = fpref_format_at(i);
		n += snprintf(err + n, errlen - (size_t)n, " %s", f->alias[0] ? f->alias : f->name);
	}
	if (n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, ", a full ml_dtypes name, or a custom eXmY[,bias=N,...])");
	return -1;
}
