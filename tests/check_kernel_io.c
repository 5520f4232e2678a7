/* fpref-cuda's standalone golden reader and results writer (kernels/io.c):
 * hand-written files in docs/golden.md's format are read as written, results
 * come out in the form `fpref verify` reads, damaged files are refused
 * with the line that is wrong, and a dot file of two formats (A*B) is read
 * with A's format and B's apart, its descriptors checked against both. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"

static const char *const convert_file =
	"# fpref golden vectors, format 1\n"
	"# op convert\n"
	"# formats float32 -> float16\n"
	"# env round=rne overflow=ieee ftz=off daz=off tininess=after (rne)\n"
	"# columns a result flags\n"
	"3F800000 3C00 00\n"
	"00000001 0000 03\n"
	"# sha256 0000000000000000000000000000000000000000000000000000000000000000\n";

static const char *const dot_file =
	"# op dot\n"
	"# formats h100 float16 -> float32\n"
	"# env h100 tensor core\n"
	"# columns a_1..a_2 b_1..b_2 c d\n"
	"3C00 4000 3C00 3C00 00000000 40400000\n"
	"# sha256 00\n";

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/check_kernel_io.XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Read text as a golden file; the status, and the message in err. */
static int read_text(const char *text, struct fk_golden *g, char *err, size_t errlen)
{
	char *path = write_temp(text);
	int s = fk_golden_read(path, g, err, errlen);
	unlink(path);
	free(path);
	return s;
}

START_TEST(reads_a_conversion_file)
{
	struct fk_golden g;
	char err[512] = "";
	ck_assert_msg(read_text(convert_file, &g, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(g.op, "convert");
	ck_assert_str_eq(g.formats, "float32 -> float16");
	ck_assert_str_eq(g.env, "round=rne overflow=ieee ftz=off daz=off tininess=after (rne)");
	ck_assert_uint_eq(g.lines, 2);
	ck_assert_int_eq(g.nin, 1);
	ck_assert_int_eq(g.K, 0);
	ck_assert_int_eq(g.width[0], 8);
	ck_assert_int_eq(g.result_width, 4);
	ck_assert_uint_eq(g.in[0], 0x3F800000u);
	ck_assert_uint_eq(g.in[1], 1);
	ck_assert_uint_eq(g.result[0], 0x3C00);
	fk_golden_free(&g);
}
END_TEST

/* Format 2 (golden/fpref_golden.h) adds header lines after '# columns':
 * the descriptors and the flags legend.  The reader takes them as header. */
static const char *const convert_file_v2 =
	"# fpref golden vectors, format 2\n"
	"# fpref 0.1.0\n"
	"# suite hw\n"
	"# op convert\n"
	"# formats float32 -> float16\n"
	"# env round=rne overflow=ieee ftz=off daz=off tininess=after (rne)\n"
	"# oracle GNU MPFR 4.2.0\n"
	"# generator edge\n"
	"# columns a result flags\n"
	"# descriptor float32 exp=8 man=23 bias=127 specials=ieee subnormals=on zero=on signed bits=32\n"
	"# descriptor float16 exp=5 man=10 bias=15 specials=ieee subnormals=on zero=on signed bits=16\n"
	"# flags hex, the OR of inexact 01 underflow 02 overflow 04 infinite 08 invalid 10 (SoftFloat's order)\n"
	"3F800000 3C00 00\n"
	"00000001 0000 03\n"
	"# sha256 0000000000000000000000000000000000000000000000000000000000000000\n";

START_TEST(reads_a_format_2_file)
{
	struct fk_golden g;
	char err[512] = "";
	ck_assert_msg(read_text(convert_file_v2, &g, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(g.op, "convert");
	ck_assert_str_eq(g.formats, "float32 -> float16");
	ck_assert_uint_eq(g.lines, 2);
	ck_assert_int_eq(g.nin, 1);
	ck_assert_uint_eq(g.in[1], 1);
	ck_assert_uint_eq(g.result[1], 0);
	fk_golden_free(&g);
}
END_TEST

START_TEST(reads_a_dot_file)
{
	struct fk_golden g;
	char err[512] = "";
	ck_assert_msg(read_text(dot_file, &g, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(g.K, 2);
	ck_assert_int_eq(g.nin, 5);
	ck_assert_int_eq(g.has_flags, 0);
	ck_assert_uint_eq(g.in[1], 0x4000);
	ck_assert_uint_eq(g.in[4], 0);
	ck_assert_uint_eq(g.result[0], 0x40400000u);
	fk_golden_free(&g);
}
END_TEST

/* A and B of two formats (issue 36): the header names the pair A*B, a
 * descriptor each, then the output's; the a columns are A's patterns. */
static const char *const dot_pair_file =
	"# fpref golden vectors, format 2\n"
	"# op dot\n"
	"# formats h100 float8_e5m2*float8_e4m3fn -> float32\n"
	"# env h100 tensor core\n"
	"# columns a_1..a_2 b_1..b_2 c d\n"
	"# descriptor float8_e5m2 exp=5 man=2 bias=15 specials=ieee subnormals=on zero=on signed bits=8\n"
	"# descriptor float8_e4m3fn exp=4 man=3 bias=7 specials=fn subnormals=on zero=on signed bits=8\n"
	"# descriptor float32 exp=8 man=23 bias=127 specials=ieee subnormals=on zero=on signed bits=32\n"
	"3C 40 38 40 00000000 40400000\n"
	"# sha256 00\n";

START_TEST(reads_a_dot_file_of_two_formats)
{
	struct fk_golden g;
	char err[512] = "";
	ck_assert_msg(read_text(dot_pair_file, &g, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(g.formats, "h100 float8_e5m2*float8_e4m3fn -> float32");
	ck_assert_str_eq(g.fmt.preset, "h100");
	ck_assert_str_eq(g.fmt.a, "float8_e5m2");
	ck_assert_str_eq(g.fmt.b, "float8_e4m3fn");
	ck_assert_str_eq(g.fmt.out, "float32");
	ck_assert_int_eq(g.descriptors, 3);
	ck_assert_int_eq(g.desc_bits[2], 32);
	ck_assert_int_eq(g.K, 2);
	ck_assert_uint_eq(g.in[0], 0x3C); /* E5M2 1.0 */
	ck_assert_uint_eq(g.in[2], 0x38); /* E4M3 1.0 */
	ck_assert_uint_eq(g.result[0], 0x40400000u);
	fk_golden_free(&g);
	/* one format: b = a, and the descriptors are the input's and the output's */
	ck_assert_msg(read_text(dot_file, &g, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(g.fmt.a, "float16");
	ck_assert_str_eq(g.fmt.b, "float16");
	ck_assert_int_eq(g.descriptors, 0);
	fk_golden_free(&g);
	ck_assert_msg(read_text(convert_file_v2, &g, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(g.fmt.preset, "");
	ck_assert_str_eq(g.fmt.a, "float32");
	ck_assert_str_eq(g.fmt.out, "float16");
	fk_golden_free(&g);
}
END_TEST

/* What a kernel's table row names, and what it refuses to take apart. */
START_TEST(parses_formats)
{
	struct fk_formats f;
	ck_assert_int_eq(fk_formats_parse("float8_e4m3fn*float8_e5m2 -> float16", 0, &f), 0);
	ck_assert_str_eq(f.a, "float8_e4m3fn");
	ck_assert_str_eq(f.b, "float8_e5m2");
	ck_assert_str_eq(f.out, "float16");
	ck_assert_str_eq(f.preset, "");
	ck_assert_int_eq(fk_formats_parse("float16 -> float32", 0, &f), 0);
	ck_assert_str_eq(f.b, "float16");
	ck_assert_int_eq(fk_formats_parse("ada float8_e5m2*float8_e4m3fn -> float32", 1, &f), 0);
	ck_assert_str_eq(f.preset, "ada");
	ck_assert_str_eq(f.b, "float8_e4m3fn");
	static const char *const bad[][2] = {
		{ "float16 float32", "0" },	   { "a*b*c -> d", "0" },      { "*b -> d", "0" }, { "a* -> d", "0" },
		{ "float16 -> float32", "1" }, { "h100 a b -> c", "1" }, { "a -> b -> c", "0" }, { "a -> ", "0" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(fk_formats_parse(bad[i][0], bad[i][1][0] == '1', &f) == -1, "'%s' was taken", bad[i][0]);
}
END_TEST

START_TEST(writes_results_verify_reads)
{
	struct fk_golden g;
	char err[512] = "";
	ck_assert_msg(read_text(convert_file, &g, err, sizeof err) == 0, "%s", err);
	char *path = write_temp("");
	uint64_t res[2] = { 0x3C00, 0x0001 };
	struct fk_results_header h = { "k: what", "", "GPU X", "d 1", NULL };
	ck_assert_msg(fk_results_write(path, &g, &h, res, err, sizeof err) == 0, "%s", err);
	char buf[1024] = "";
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "# fpref-cuda results, format 1\n"
			      "# op convert\n"
			      "# formats float32 -> float16\n"
			      "# env round=rne overflow=ieee ftz=off daz=off tininess=after (rne)\n"
			      "# kernel k: what\n"
			      "# gpu GPU X\n"
			      "# driver d 1\n"
			      "3F800000 3C00\n"
			      "00000001 0001\n");
	unlink(path);
	free(path);
	fk_golden_free(&g);
}
END_TEST

/* Each damaged file, and a piece of the message it must give. */
static const struct {
	const char *text, *message;
} damaged[] = {
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n3F800000 3C00 00\n", "no '# sha256'" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n3F800000 3C00 00\n# sha256 0\nX\n",
	  ":7: text after" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n3F80000G 3C00 00\n# sha256 0\n",
	  ":5: column 1 is not a hex" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n3F800000 3C00\n# sha256 0\n",
	  ":5: 2 columns, the header says 3" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n3F800000 3C00 00 00\n# sha256 0\n",
	  ":5: more than 3 columns" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n3F800000 3C00 00\n3F80000 3C00 00\n# sha256 0\n",
	  ":6: column 1 has 7 hex digits" },
	{ "# op convert\n# formats a -> b\n# env e\n3F800000 3C00 00\n# columns a result flags\n# sha256 0\n",
	  ":4: a body line before" },
	{ "# formats a -> b\n# env e\n# columns a result flags\n3F800000 3C00 00\n# sha256 0\n", "not a golden file" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n# sha256 0\n", "not a golden file" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a b c\n00 00 00\n# sha256 0\n", ":4: unreadable '# columns" },
	{ "# op dot\n# formats a -> b\n# env e\n# columns a_1..a_0 b c d\n00 00 00\n# sha256 0\n", ":4: unreadable" },
	{ "# op convert\n# formats a -> b\n# env e\n# columns a result flags\n11223344556677889 00 00\n# sha256 0\n",
	  "at most 16 digits" },
	/* the formats and their descriptors (issue 36: A's and B's apart) */
	{ "# op dot\n# formats h100 -> c\n# env e\n# columns a_1..a_1 b_1..b_1 c d\n00 00 00 00\n# sha256 0\n",
	  "unreadable '# formats h100 -> c'" },
	{ "# op convert\n# formats a*b -> c\n# env e\n# columns a result flags\n00 00 00\n# sha256 0\n",
	  "names two inputs, but the file is not a dot" },
	{ "# op dot\n# formats h100 float8_e5m2*float8_e4m3fn -> float32\n# env e\n# columns a_1..a_1 b_1..b_1 c d\n"
	  "# descriptor float8_e4m3fn bits=8\n# descriptor float8_e5m2 bits=8\n# descriptor float32 bits=32\n"
	  "3C 38 00000000 3F800000\n# sha256 0\n",
	  "descriptor 1 is float8_e4m3fn, '# formats h100 float8_e5m2*float8_e4m3fn -> float32' says float8_e5m2" },
	{ "# op dot\n# formats h100 float8_e5m2*float8_e4m3fn -> float32\n# env e\n# columns a_1..a_1 b_1..b_1 c d\n"
	  "# descriptor float8_e5m2 bits=8\n# descriptor float32 bits=32\n3C 38 00000000 3F800000\n# sha256 0\n",
	  "descriptor 2 is float32" },
	{ "# op dot\n# formats h100 float8_e5m2*float8_e4m3fn -> float32\n# env e\n# columns a_1..a_1 b_1..b_1 c d\n"
	  "# descriptor float8_e5m2 bits=8\n# descriptor float8_e4m3fn bits=8\n"
	  "3C 38 00000000 3F800000\n# sha256 0\n",
	  "2 '# descriptor' lines, '# formats h100 float8_e5m2*float8_e4m3fn -> float32' names 3 formats" },
	{ "# op dot\n# formats h100 float8_e5m2*float16 -> float32\n# env e\n# columns a_1..a_1 b_1..b_1 c d\n"
	  "# descriptor float8_e5m2 bits=8\n# descriptor float16 bits=16\n# descriptor float32 bits=32\n"
	  "3C 38 00000000 3F800000\n# sha256 0\n",
	  "column 2 has 2 hex digits, its format float16 has 16 bits (4 digits)" },
	{ "# op dot\n# formats h100 float16 -> float32\n# env e\n# columns a_1..a_1 b_1..b_1 c d\n"
	  "# descriptor float16 bits=16\n# descriptor float32 bits=x\n3C00 3C00 00000000 3F800000\n# sha256 0\n",
	  ":6: unreadable '# descriptor float32 bits=x'" },
};

START_TEST(refuses_damaged_files)
{
	struct fk_golden g;
	char err[512] = "";
	int i = _i;
	ck_assert_int_eq(read_text(damaged[i].text, &g, err, sizeof err), -1);
	ck_assert_msg(strstr(err, damaged[i].message) != NULL, "case %d: '%s' lacks '%s'", i, err, damaged[i].message);
	ck_assert_ptr_null(g.in);
}
END_TEST

START_TEST(refuses_a_missing_file)
{
	struct fk_golden g;
	char err[512] = "";
	ck_assert_int_eq(fk_golden_read("/nonexistent/golden.txt", &g, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "/nonexistent/golden.txt") != NULL, "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel_io");
	TCase *tc = tcase_create("io");
	tcase_add_test(tc, reads_a_conversion_file);
	tcase_add_test(tc, reads_a_format_2_file);
	tcase_add_test(tc, reads_a_dot_file);
	tcase_add_test(tc, reads_a_dot_file_of_two_formats);
	tcase_add_test(tc, parses_formats);
	tcase_add_test(tc, writes_results_verify_reads);
	tcase_add_loop_test(tc, refuses_damaged_files, 0, (int)(sizeof damaged / sizeof damaged[0]));
	tcase_add_test(tc, refuses_a_missing_file);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_ENV);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
