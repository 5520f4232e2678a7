/* The IEEE P3109 family as a rule, not as 400 rows.  From the working
 * group's interim report: a format Binary{K,P,Σ,Δ} has K bits and P bits of
 * precision (P-1 stored fraction bits); signed formats spend one bit on the
 * sign and have K-P exponent bits, bias 2^(K-P-1); unsigned ones have
 * K-P+1 exponent bits, bias 2^(K-P).  There is one zero and one NaN: the
 * NaN takes the code 2^(K-1) (the -0 pattern, fpref's fnuz) when signed and
 * 2^K-1 (all ones, fpref's fn) when unsigned.  Extended formats (Δ = e)
 * give the greatest magnitude below the NaN to inf: ±inf at 2^(K-1)-1 and
 * 2^K-1 signed, +inf at 2^K-2 unsigned; finite ones (f) keep it a number.
 * Subnormals wherever there are fraction bits (P > 1).  With none (P = 1)
 * a tie goes to the even code, the exponent field's parity (the report's
 * rounding as the imandra-ai/ieee-p3109 formal model executes it). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fpref_formats.h"

static const char rule[] =
	"binaryKpP{s,u}{e,f}: IEEE P3109 Binary{K,P,signed|unsigned,extended|finite}, 3 <= K <= 16, "
	"1 <= P <= K-1 signed or P <= K unsigned; P-1 fraction bits, bias 2^(K-P-1) signed or 2^(K-P) "
	"unsigned, one zero, NaN at 2^(K-1) signed or 2^K-1 unsigned, extended: inf at the code below "
	"the NaN's magnitude (±inf at 2^(K-1)-1 and 2^K-1 signed, +inf at 2^K-2 unsigned), e.g. binary8p4se";

const char *fpref_format_p3109_rule(void)
{
	return rule;
}

int fpref_format_p3109(const char *spelling, struct fpref_format *out, char *err, size_t errlen)
{
	if (strncasecmp(spelling, "binary", 6) != 0)
		return 1;
	const char *s = spelling + 6;
	long k = 0, p = 0;
	for (; isdigit((unsigned char)*s) && k < 100; s++)
		k = k * 10 + (*s - '0');
	if (s == spelling + 6 || tolower((unsigned char)*s) != 'p' || !isdigit((unsigned char)s[1]))
		return 1;
	const char *digits = ++s;
	for (; isdigit((unsigned char)*s) && p < 100; s++)
		p = p * 10 + (*s - '0');
	if (s == digits || !s[0] || !s[1] || s[2] != '\0')
		return 1;
	char sigma = (char)tolower((unsigned char)s[0]), delta = (char)tolower((unsigned char)s[1]);
	if ((sigma != 's' && sigma != 'u') || (delta != 'e' && delta != 'f'))
		return 1;
	bool is_signed = sigma == 's';
	if (k < 3 || k > 16 || p < 1 || p > (is_signed ? k - 1 : k)) {
		snprintf(err, errlen, "P3109 format '%s': K must be 3..16 and P 1..%s (here K=%ld, P=%ld)", spelling,
			 is_signed ? "K-1 when signed" : "K when unsigned", k, p);
		return -1;
	}
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "binary%ldp%ld%c%c", k, p, sigma, delta);
	out->exp_bits = (int)(is_signed ? k - p : k - p + 1);
	out->man_bits = (int)p - 1;
	out->bias = 1 << (out->exp_bits - 1);
	out->is_signed = is_signed;
	out->has_zero = true;
	out->subnormals = p > 1;
	out->specials = is_signed ? FPREF_SPECIALS_FNUZ : FPREF_SPECIALS_FN;
	out->inf_at_top = delta == 'e';
	out->code_parity = true; /* ties at P = 1 go to the even exponent field */
	out->note = "IEEE P3109 interim report (family rule: fpref formats)";
	return 0;
}
