/* The block scales of a GEMM (--scale-a SA.npy --scale-b SB.npy
 * --scale-every E --scale-format FMT), shared by fpref gemm and fpref
 * verify-gemm so that both read the same files the same way. */
#include <stdlib.h>

#include "cli.h"

int cli_gemm_scales_check(const char *cmd, const struct cli_gemm_scale_text *t, const struct fpref_accum_model *m,
			  const struct fpref_format *in_a, const struct fpref_format *in_b, const struct fpref_format *out,
			  struct cli_gemm_scales *s)
{
	*s = (struct cli_gemm_scales){ 0 };
	s->wanted = t->a || t->b;
	if (!s->wanted) {
		if (t->every || t->format) {
			cli_fail(cmd, "--scale-every and --scale-format describe block scales: give --scale-a SA.npy and/or "
				      "--scale-b SB.npy");
			return CLI_EXIT_USAGE;
		}
		return 0;
	}
	if (cli_parse_format(cmd, t->format ? t->format : "float8_e8m0fnu", &s->format) != 0)
		return CLI_EXIT_USAGE;
	s->every = fpref_format_is(&s->format, FPREF_FORMAT_FLOAT8_E4M3FN) ? 16 : 32;
	char *end, err[256];
	if (t->every) {
		unsigned long e = strtoul(t->every, &end, 10);
		if (!*t->every || *end || *t->every == '-' || e < 1 || e > 1u << 20) {
			cli_fail(cmd, "bad --scale-every '%s' (an integer 1..1048576)", t->every);
			return CLI_EXIT_USAGE;
		}
		s->every = e;
	}
	uint64_t none = 0;
	struct fpref_tc_scales probe = { &s->format, &none, &none, s->every };
	if (!fpref_golden_model_scales_ok(m, in_a, in_b, out, &probe, err, sizeof err)) {
		cli_fail(cmd, "--scale-a/--scale-b: %s", err);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* One scale matrix: rows x cols from path, or ones without it. */
static int load_one(const char *cmd, const char *path, const char *what, const struct fpref_format *sf, size_t rows,
		    size_t cols, const char *shape, uint64_t **out)
{
	*out = NULL;
	if (!path) {
		uint64_t *one = NULL;
		size_t n = 0;
		char err[256];
		*out = malloc((rows * cols + 1) * sizeof **out);
		if (!*out || fpref_golden_scales_parse(sf, "1", &one, &n, err, sizeof err) != 0) {
			free(one);
			free(*out);
			*out = NULL;
			cli_fail(cmd, "out of memory");
			return CLI_EXIT_FAIL;
		}
		for (size_t i = 0; i < rows * cols; i++)
			(*out)[i] = one[0];
		free(one);
		return 0;
	}
	struct cli_matrix m;
	int status = cli_load_matrix(cmd, path, what, sf, 0, 0, &m, NULL, NULL);
	if (!status && (m.rows != rows || m.cols != cols)) {
		cli_fail(cmd, "%s: %s must be %s = %zu x %zu, not %zu x %zu", path, what, shape, rows, cols, m.rows, m.cols);
		status = CLI_EXIT_USAGE;
	}
	/* values, as fpref dot's scale values: positive and finite (a NaN or
	 * zero scale only as its pattern, so that none is one by accident) */
	for (size_t i = 0; !status && m.values && i < rows * cols; i++) {
		struct fpref_unpacked u;
		fpref_decode(sf, m.bits[i], &u);
		if (u.negative || u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_ZERO) {
			cli_fail(cmd, "%s: %s element (%zu, %zu) is not a positive finite scale (give NaN or zero scales as "
				      "uint8 patterns)", path, what, i / cols, i % cols);
			status = CLI_EXIT_USAGE;
		}
	}
	if (status)
		free(m.bits);
	else
		*out = m.bits;
	return status;
}

int cli_gemm_scales_load(const char *cmd, const struct cli_gemm_scale_text *t, size_t M, size_t K, size_t N,
			 struct cli_gemm_scales *s)
{
	if (K % s->every) {
		cli_fail(cmd, "K = %zu is not a multiple of --scale-every %zu: every block of %zu products along K takes "
			      "one scale", K, s->every, s->every);
		return CLI_EXIT_USAGE;
	}
	int status = load_one(cmd, t->a, "SA (the scales of A)", &s->format, M, K / s->every, "M x K/E", &s->a);
	if (!status)
		status = load_one(cmd, t->b, "SB (the scales of B)", &s->format, K / s->every, N, "K/E x N", &s->b);
	return status;
}

void cli_gemm_scales_free(struct cli_gemm_scales *s)
{
	free(s->a);
	free(s->b);
	s->a = s->b = NULL;
}

struct fpref_tc_gemm_scales cli_gemm_scales_view(const struct cli_gemm_scales *s)
{
	return (struct fpref_tc_gemm_scales){ &s->format, s->a, s->b, s->every };
}
