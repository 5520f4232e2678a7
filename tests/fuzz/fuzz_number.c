/* Numbers in every accepted syntax: decimal, hex float, inf/nan words, hex
 * bit patterns; a parsed number is rounded to a few formats. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), err[512];
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	if (fpref_ref_parse(s, &v, err, sizeof err) == 0) {
		static const char *const targets[] = { "float8_e4m3fn", "float16", "bfloat16", "float32", "float64",
						       "float8_e8m0fnu", "float4_e2m1fn" };
		for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
			struct fpref_format f;
			struct fpref_env env;
			fpref_format_parse(targets[i], &f, NULL, 0);
			fpref_env_default(&env);
			uint64_t bits;
			unsigned flags = 0;
			fpref_ref_round(&v, &f, &env, 0, &bits, &flags, NULL);
		}
	}
	fpref_ref_value_clear(&v);
	struct fpref_format f16;
	uint64_t bits;
	fpref_format_parse("float16", &f16, NULL, 0);
	fpref_format_parse_bits(&f16, s, &bits, err, sizeof err);
	free(s);
	return 0;
}
