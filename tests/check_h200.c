/* The sm_90 tensor-core presets against results measured on an NVIDIA
 * H200 (tests/data/h200-*.txt, header there): every line must match bit for
 * bit through its preset, in the emulator and in the oracle, and each set
 * must tell its preset from the other instruction's (the alternative
 * preset misses at least half of the lines, as they were chosen). */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "fpref_ref.h"
#include "fpref_emu_tc.h"

#define MAX_K 128
#define LINE_MAX_CHARS 4096

struct set {
	char kernel[96], model[32], alt[32], in[32], out[32];
	int K, lines;
};

struct tally {
	int lines, alt_misses;
};

static unsigned hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	ck_assert_msg(c >= 'A' && c <= 'F', "bad hex digit '%c'", c);
	return (unsigned)(c - 'A' + 10);
}

/* K patterns of `digits` hex digits each, written together. */
static void read_patterns(const char *text, int K, int digits, uint64_t *out)
{
	ck_assert_int_eq((int)strlen(text), K * digits);
	for (int k = 0; k < K; k++) {
		uint64_t v = 0;
		for (int j = 0; j < digits; j++)
			v = v << 4 | hex_digit(text[k * digits + j]);
		out[k] = v;
	}
}

static const struct fpref_tc_model *preset(const char *gpu, const struct fpref_format *in)
{
	const struct fpref_tc_model *m = fpref_tc_model_find(gpu, in);
	ck_assert_msg(m != NULL, "no preset %s for %s", gpu, in->name);
	return m;
}

/* One measured line: the preset through both engines must give the GPU's d. */
static void replay_line(const struct set *s, const char *line, struct tally *t)
{
	static char a_text[LINE_MAX_CHARS], b_text[LINE_MAX_CHARS];
	unsigned long long c, d;
	ck_assert_msg(sscanf(line, "%4095s %4095s %llx %llx", a_text, b_text, &c, &d) == 4, "%s: bad line %s",
		      s->kernel, line);
	struct fpref_format in = test_format(s->in), out = test_format(s->out);
	int digits = (fpref_format_container_bits(&in) + 3) / 4;
	uint64_t a[MAX_K], b[MAX_K], emu = 0, ref = 0, alt = 0;
	read_patterns(a_text, s->K, digits, a);
	read_patterns(b_text, s->K, digits, b);
	const struct fpref_tc_model *m = preset(s->model, &in), *other = preset(s->alt, &in);
	ck_assert_int_eq(fpref_emu_tc_dot(m, &in, &in, a, b, (size_t)s->K, c, &out, &emu), 0);
	ck_assert_int_eq(fpref_ref_tc_dot(m, &in, &in, a, b, (size_t)s->K, c, &out, &ref), 0);
	ck_assert_msg(emu == d && ref == d, "%s line %d (%s): GPU %llx, emulator %llx, oracle %llx", s->kernel,
		      t->lines + 1, s->model, d, (unsigned long long)emu, (unsigned long long)ref);
	ck_assert_int_eq(fpref_emu_tc_dot(other, &in, &in, a, b, (size_t)s->K, c, &out, &alt), 0);
	t->alt_misses += alt != d;
	t->lines++;
}

static int replay_file(const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", FPREF_TEST_DATA, name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static char line[3 * LINE_MAX_CHARS];
	struct set s = { "", "", "", "", "", 0, 0 };
	struct tally t = { 0, 0 };
	int sets = 0, total = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "# set ", 6) == 0) {
			ck_assert_int_eq(t.lines, s.lines);
			ck_assert_msg(2 * t.alt_misses >= t.lines, "%s: %s misses only %d of %d", s.kernel, s.alt,
				      t.alt_misses, t.lines);
			ck_assert_int_eq(sscanf(line + 6, "%95s %31s %31s %31s %31s %d %d", s.kernel, s.model, s.alt, s.in,
						s.out, &s.K, &s.lines), 7);
			ck_assert(s.K > 0 && s.K <= MAX_K && s.lines > 0);
			t = (struct tally){ 0, 0 };
			sets++;
		} else if (line[0] != '#' && line[0] != '\n') {
			ck_assert_msg(sets > 0, "%s: a line before the first set", name);
			replay_line(&s, line, &t);
			total++;
		}
	}
	fclose(f);
	ck_assert_int_eq(t.lines, s.lines);
	ck_assert(2 * t.alt_misses >= t.lines);
	printf("%s: %d sets, %d measured lines, all bit-exact (emulator and oracle)\n", name, sets, total);
	return total;
}

START_TEST(h200_mma)
{
	ck_assert_int_gt(replay_file("h200-mma.txt"), 500);
}
END_TEST

START_TEST(h200_wgmma)
{
	ck_assert_int_gt(replay_file("h200-wgmma.txt"), 700);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("H200 measurements");
	TCase *tc = tcase_create("h200");
	tcase_add_test(tc, h200_mma);
	tcase_add_test(tc, h200_wgmma);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
