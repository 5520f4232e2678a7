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
	if (f->exp_bits < 1 || f->exp_bits > 16)
		why = "exponent bits must be 1..16";
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
	else if (f->inf_at_top && (f->specials == FPREF_SPECIALS_IEEE || fpref_format_max_exponent(f) < fpref_format_min_exponent(f)))
		why = "inf at the top code needs specials fn, fnuz or none and a normal number below it";
	else if (f->integer && (f->exp_bits != 1 || !f->has_zero || !f->subnormals || f->specials != FPREF_SPECIALS_NONE ||
				f->pad_bits != 0 || f->inf_at_top || f->code_parity))
		why = "an integer format is one exponent bit with zero and subnormals on and no specials";
	else if (f->symmetric && (!f->integer || !f->is_signed))
		why = "a symmetric range is for signed integers";
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

void fpref_format_descriptor(const struct fpref_format *f, char *buf, size_t len)
{
	snprintf(buf, len, "e%dm%d,bias=%d,specials=%s,subnormals=%s,zero=%s%s%s%s", f->exp_bits, f->man_bits, f->bias,
		 fpref_specials_name(f->specials), f->subnormals ? "on" : "off", f->has_zero ? "on" : "off",
		 f->is_signed ? "" : ",unsigned", f->integer ? ",integer" : "", f->symmetric ? ",symmetric" : "");
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
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",zero=off");
	if (f->integer)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ",integer");
	if (f->symmetric)
		snprintf(buf + n, sizeof buf - (size_t)n, ",symmetric");
	/* an option-free custom spelling keeps its prefix so that it reads back as itself */
	if (!strchr(buf, ',')) { /* at most "e15m62": room to spare */
		memmove(buf + 7, buf, strlen(buf) + 1);
		memcpy(buf, "custom:", 7);
	}
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
	} else if (strcmp(opt, "integer") == 0) { /* the integer rows' descriptors read back (formats/int.c) */
		f->integer = true;
		return 0;
	} else if (strcmp(opt, "symmetric") == 0) {
		f->symmetric = true;
		return 0;
	}
	snprintf(err, errlen,
		 "bad format option '%s' (choices: bias=N, specials=ieee|fn|fnuz|none, "
		 "subnormals=on|off, zero=on|off, unsigned, integer, symmetric)", opt);
	return -1;
}

/* A custom spelling "eXmY[,option...]" (buf, lower case, writable).
 * 0 and the format; -1 with a message; 1 when buf is not of that shape. */
static int parse_custom(char *buf, const char *spelling, struct fpref_format *out, char *err, size_t errlen)
{
	char *opts = strchr(buf, ',');
	if (opts)
		*opts++ = '\0';

	int e, m, used = 0;
	if (sscanf(buf, "e%dm%d%n", &e, &m, &used) != 2 || buf[used] != '\0' || !isdigit((unsigned char)buf[1]))
		return 1;
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

/* The catalogue row a name, alias or other spelling stands for, or NULL. */
static const struct fpref_format *find_named(const char *name)
{
	for (size_t i = 0; i < fpref_format_alias_count(); i++) {
		const struct fpref_format_alias *a = fpref_format_alias_at(i);
		if (strcasecmp(name, a->spelling) == 0) {
			name = a->name;
			break;
		}
	}
	for (size_t i = 0; i < fpref_format_count(); i++) {
		const struct fpref_format *f = fpref_format_at(i);
		if (strcasecmp(name, f->name) == 0 || (f->alias[0] && strcasecmp(name, f->alias) == 0))
			return f;
	}
	return NULL;
}

/* The named format closest in shape to e exponent and m mantissa bits
 * (fewest bits changed; the earlier row on a tie). */
static const struct fpref_format *nearest_shape(int e, int m)
{
	const struct fpref_format *best = NULL;
	int best_d = 0;
	for (size_t i = 0; i < fpref_format_count(); i++) {
		const struct fpref_format *f = fpref_format_at(i);
		int d = abs(f->exp_bits - e) + abs(f->man_bits - m);
		if (!best || d < best_d) {
			best = f;
			best_d = d;
		}
	}
	return best;
}

/* Edit distance of two short lower-case names, capped at 15. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 31 || lb > 31)
		return 15;
	int row[32];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb] < 15 ? row[lb] : 15;
}

/* The catalogue name nearest in spelling to name, if it is near (at most a
 * third of the letters differ), or NULL. */
static const char *nearest_spelling(const char *name)
{
	const char *best = NULL;
	int best_d = 15;
	for (size_t i = 0; i < fpref_format_count() + fpref_format_alias_count(); i++) {
		const struct fpref_format *f = i < fpref_format_count() ? fpref_format_at(i) : NULL;
		const struct fpref_format_alias *a = f ? NULL : fpref_format_alias_at(i - fpref_format_count());
		const char *cands[2] = { f ? f->name : a->spelling, f ? f->alias : "" };
		for (int c = 0; c < 2; c++) {
			if (!cands[c][0])
				continue;
			int d = distance(name, cands[c]);
			if (d < best_d) {
				best_d = d;
				best = f ? f->name : a->name;
			}
		}
	}
	return best && best_d * 3 <= (int)strlen(name) ? best : NULL;
}

/* Words that name a family of formats, not one: the family's members are
 * the answer, where the nearest spelling would be a wrong guess (fp8 is
 * one edit from fp4). */
static const struct {
	const char *word, *members;
} families[] = {
	{ "fp8", "FP8 is a family: name e4m3 (float8_e4m3fn) or e5m2 (float8_e5m2); CDNA3's e4m3fnuz, "
		 "e5m2fnuz; P3109's binary8p3se ..." },
	{ "float8", "FP8 is a family: name e4m3 (float8_e4m3fn) or e5m2 (float8_e5m2); CDNA3's e4m3fnuz, e5m2fnuz" },
	{ "fp6", "FP6 is a family: name e2m3 (float6_e2m3fn) or e3m2 (float6_e3m2fn)" },
	{ "float6", "FP6 is a family: name e2m3 (float6_e2m3fn) or e3m2 (float6_e3m2fn)" },
	{ "mxfp8", "MXFP8 is a block-scaled scheme, not an element format: fpref quantize --scheme mxfp8 (elements e4m3 or "
		   "e5m2, scales e8m0)" },
	{ "mxfp6", "MXFP6 is a block-scaled scheme, not an element format: fpref quantize --scheme mxfp6 (elements e2m3 or "
		   "e3m2, scales e8m0)" },
	{ "mxfp4", "MXFP4 is a block-scaled scheme, not an element format: fpref quantize --scheme mxfp4 (elements e2m1, "
		   "scales e8m0)" },
	{ "nvfp4", "NVFP4 is a block-scaled scheme, not an element format: fpref quantize --scheme nvfp4 (elements e2m1, "
		   "scales e4m3)" },
};

static const char *family_members(const char *name)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (strcasecmp(name, families[i].word) == 0)
			return families[i].members;
	return NULL;
}

/* The framework prefixes a user may paste with a dtype name. */
static const char *strip_prefix(const char *s)
{
	static const char *const prefixes[] = { "torch.", "numpy.", "np.", "jax.numpy.", "jnp.", "ml_dtypes.",
						"onnx.TensorProto.", "TensorProto." };
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncasecmp(s, prefixes[i], n) == 0)
			return s + n;
	}
	return s;
}

int fpref_format_parse(const char *spelling, struct fpref_format *out, char *err, size_t errlen)
{
	char buf[256];
	if (strlen(spelling) >= sizeof buf) {
		snprintf(err, errlen, "format name too long");
		return -1;
	}
	const char *name = strip_prefix(spelling);
	const char *why = fpref_format_refused(name);
	if (why) {
		snprintf(err, errlen, "format '%s' is not supported: %s", spelling, why);
		return -1;
	}
	const struct fpref_format *row = strchr(name, ',') ? NULL : find_named(name);
	if (row) {
		*out = *row;
		return 0;
	}
	if (fpref_format_int(name, out) == 0)
		return 0;
	int p3109 = fpref_format_p3109(name, out, err, errlen);
	if (p3109 <= 0)
		return p3109;
	/* Custom formats: "custom:eXmY[,...]", or "eXmY,option..." whose
	 * explicit option shows it is meant. */
	bool deliberate = strncasecmp(name, "custom:", 7) == 0;
	size_t i = 0;
	for (const char *p = deliberate ? name + 7 : name; *p; p++)
		buf[i++] = (char)tolower((unsigned char)*p);
	buf[i] = '\0';
	bool has_option = strchr(buf, ',') != NULL;
	int e, m, used = 0;
	if (!deliberate && !has_option && sscanf(buf, "e%dm%d%n", &e, &m, &used) == 2 && buf[used] == '\0' &&
	    isdigit((unsigned char)buf[1])) {
		const struct fpref_format *near = nearest_shape(e, m);
		snprintf(err, errlen,
			 "unknown format '%s': no named format has that name (the nearest is %s, %s); a custom format "
			 "is written deliberately, as custom:%s or with an option such as %s,bias=N",
			 spelling, near->alias[0] ? near->alias : near->name, near->name, buf, buf);
		return -1;
	}
	int r = parse_custom(buf, spelling, out, err, errlen);
	if (r <= 0)
		return r;
	const char *family = family_members(name);
	const char *near = family ? NULL : nearest_spelling(name);
	int n = snprintf(err, errlen, "unknown format '%s'", spelling);
	if (family && n > 0 && (size_t)n < errlen)
		n += snprintf(err + n, errlen - (size_t)n, " (%s)", family);
	if (near && n > 0 && (size_t)n < errlen)
		n += snprintf(err + n, errlen - (size_t)n, " (did you mean %s?)", near);
	if (n > 0 && (size_t)n < errlen)
		n += snprintf(err + n, errlen - (size_t)n, " (choices:");
	for (size_t k = 0; k < fpref_format_count() && n > 0 && (size_t)n < errlen; k++) {
		const struct fpref_format *f = fpref_format_at(k);
		n += snprintf(err + n, errlen - (size_t)n, " %s", f->alias[0] ? f->alias : f->name);
	}
	if (n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n,
			 ", a full ml_dtypes, PyTorch or ONNX name (fpref formats lists them), a P3109 "
			 "binaryKpP{s,u}{e,f}, or custom:eXmY[,bias=N,...])");
	return -1;
}
