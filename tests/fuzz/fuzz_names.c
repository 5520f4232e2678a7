/* Format and environment names: catalogue names, aliases, custom
 * eXmY spellings, environment words and profiles, operations, models. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), err[512];
	struct fpref_format f;
	if (fpref_format_parse(s, &f, err, sizeof err) == 0) {
		/* a format that parses must decode and encode its own patterns */
		int width = fpref_format_container_bits(&f);
		uint64_t limit = width >= 16 ? 1u << 16 : 1u << width;
		for (uint64_t b = 0; b < limit; b++) {
			struct fpref_unpacked u;
			uint64_t back;
			uint64_t bits = b << f.pad_bits;
			if (fpref_decode(&f, bits, &u) == FPREF_DECODE_OK && u.cls != FPREF_CLASS_NAN &&
			    (fpref_encode(&f, &u, &back) != 0 || back != bits))
				abort();
		}
		struct fpref_env env;
		fpref_golden_env_parse(s, NULL, &f, &env, err, sizeof err);
	}
	struct fpref_env env;
	fpref_env_default(&env);
	fpref_env_parse_sr(s, &env, err, sizeof err);
	enum fpref_rounding r;
	fpref_rounding_parse(s, &r);
	enum fpref_op op;
	fpref_op_parse(s, &op);
	fpref_format_parse("float16", &f, NULL, 0);
	fpref_profile_apply(s, &f, &env);
	fpref_tc_model_find(s, &f);
	free(s);
	return 0;
}
