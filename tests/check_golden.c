/* Golden files: SHA-256 against the FIPS 180-4 examples, suites and their
 * errors, generation that is the same on one thread or two and in shards,
 * resumption, atomic files, reading that refuses damaged files, and the
 * classes of mismatch. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpref_formats_file.h"
#include "testutil.h"

static void sha_hex(const void *data, size_t n, char hex[65])
{
	struct fpref_sha256 s;
	fpref_golden_sha256_init(&s);
	fpref_golden_sha256_update(&s, data, n);
	fpref_golden_sha256_hex(&s, hex);
}

/* FIPS 180-4's examples (NIST's "SHA256.pdf" and its long-message test). */
START_TEST(sha256_vectors)
{
	char hex[65];
	sha_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha_hex(two_blocks, strlen(two_blocks), hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	struct fpref_sha256 s;
	fpref_golden_sha256_init(&s);
	char a[1000];
	memset(a, 'a', sizeof a);
	for (int i = 0; i < 1000; i++) /* a million 'a', fed in pieces that straddle blocks */
		fpref_golden_sha256_update(&s, a, sizeof a);
	fpref_golden_sha256_hex(&s, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static const char small_suite[] = "# a small suite\n"
				  "suite small\n"
				  "seed 7\n"
				  "convert float4_e2m1fn,float8_e4m3fn float16,float8_e5m2 rne,rtz+sat exhaustive\n"
				  "op add,fma,lt float6_e3m2fn rne edge+random:300\n"
				  "op mul,sqrt float16 rne+ftz,cuda edge+random:200\n"
				  "dot h100,v100 float8_e4m3fn,float16 float32,float16 random:20:40\n";

START_TEST(suite_errors)
{
	char dir[] = "/tmp/fpref-suite.XXXXXX", path[256], err[1024];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/s.suite", dir);
	struct fpref_golden_suite s;
	write_text(path, small_suite);
	ck_assert_int_eq(fpref_golden_suite_read(path, &s, err, sizeof err), 0);
	/* 2 x 2 x 2 conversions, 3 ops, 2 x 2 ops; dot: h100 x 2 inputs x 2 outputs + v100 x float16 x 2 */
	ck_assert_uint_eq(s.njobs, 8 + 3 + 4 + 6);
	ck_assert_str_eq(s.jobs[0].path, "convert/float4_e2m1fn-float16.rne.txt");
	fpref_golden_suite_free(&s);
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "suite x\nop add float32 rne exhaustive\n", "at most 8 bits" },
		{ "suite x\nop frobnicate float16 rne edge\n", "frobnicate" },
		{ "suite x\nconvert float16 float99 rne edge\n", "float99" },
		{ "suite x\nconvert float16 float32 rne+wobbly edge\n", "wobbly" },
		{ "suite x\nconvert float16 float32 rne sometimes\n", "bad generator" },
		{ "suite x\ndot h100 float16 float32 random:10\n", "random:N:K" },
		{ "suite x\ndot h100 float16 bfloat16 random:10:8\n", "float32 or float16" },
		{ "suite x\nconvert float16 float32 rne edge\nconvert float16 float32 rne edge\n", "two jobs" },
		{ "convert float16 float32 rne edge\n", "no 'suite NAME'" },
		{ "suite x\nseed -1\n", "bad seed" },
		{ "suite x\n", "no jobs" },
		{ "suite x\nop add float16 rne\n", "expected" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_text(path, bad[i].text);
		err[0] = '\0';
		ck_assert_int_eq(fpref_golden_suite_read(path, &s, err, sizeof err), -1);
		ck_assert_msg(strstr(err, bad[i].says) && strstr(err, "s.suite"), "case %zu: '%s'", i, err);
	}
	remove(path);
	rmdir(dir);
}
END_TEST

/* Every file of a folder, concatenated in name order with its name. */
static void fingerprint(const char *dir, const char *sub, struct fpref_sha256 *s, size_t *files)
{
	char path[1024];
	snprintf(path, sizeof path, "%s%s%s", dir, sub[0] ? "/" : "", sub);
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char child[1400], rel[1024];
		snprintf(child, sizeof child, "%s/%s", path, name);
		snprintf(rel, sizeof rel, "%s%s%s", sub, sub[0] ? "/" : "", name);
		struct stat st;
		if (name[0] != '.' && stat(child, &st) == 0) {
			ck_assert_msg(name[0] != '.', "%s: a leftover temporary", child);
			if (S_ISDIR(st.st_mode))
				fingerprint(dir, rel, s, files);
			else {
				size_t len;
				char *text = read_all(child, &len);
				fpref_golden_sha256_update(s, rel, strlen(rel));
				fpref_golden_sha256_update(s, text, len);
				free(text);
				(*files)++;
			}
		} else if (name[0] == '.' && strcmp(name, ".") && strcmp(name, ".."))
			ck_abort_msg("%s: a leftover temporary", child);
		free(names[i]);
	}
	free(names);
}

static void fingerprint_hex(const char *dir, char hex[65], size_t *files)
{
	struct fpref_sha256 s;
	fpref_golden_sha256_init(&s);
	*files = 0;
	fingerprint(dir, "", &s, files);
	fpref_golden_sha256_hex(&s, hex);
}

/* One thread, two threads, and three shards give the same bytes; a second
 * run skips every file; a damaged file is made again. */
START_TEST(generation_is_deterministic)
{
	char base[] = "/tmp/fpref-gen.XXXXXX", path[256], err[2048], one[300], two[300], shards[300];
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(path, sizeof path, "%s/s.suite", base);
	write_text(path, small_suite);
	struct fpref_golden_suite s;
	ck_assert_int_eq(fpref_golden_suite_read(path, &s, err, sizeof err), 0);
	snprintf(one, sizeof one, "%s/one", base);
	snprintf(two, sizeof two, "%s/two", base);
	snprintf(shards, sizeof shards, "%s/shards", base);
	mkdir(one, 0777);
	mkdir(two, 0777);
	mkdir(shards, 0777);
	struct fpref_golden_progress p;
	ck_assert_int_eq(fpref_golden_generate(&s, one, 0, 1, 1, NULL, NULL, &p, err, sizeof err), 0);
	ck_assert_uint_eq(p.files, s.njobs);
	unsigned long long vectors = p.vectors;
	ck_assert_int_eq(fpref_golden_generate(&s, two, 0, 1, 2, NULL, NULL, &p, err, sizeof err), 0);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_int_eq(fpref_golden_generate(&s, shards, i, 3, 1, NULL, NULL, &p, err, sizeof err), 0);
	char h1[65], h2[65], h3[65];
	size_t f1, f2, f3;
	fingerprint_hex(one, h1, &f1);
	fingerprint_hex(two, h2, &f2);
	fingerprint_hex(shards, h3, &f3);
	ck_assert_uint_eq(f1, s.njobs);
	ck_assert_str_eq(h1, h2);
	ck_assert_str_eq(h1, h3);
	/* resumption: nothing to do; then a damaged file is made again, the rest skipped */
	ck_assert_int_eq(fpref_golden_generate(&s, one, 0, 1, 1, NULL, NULL, &p, err, sizeof err), 0);
	ck_assert_uint_eq(p.skipped, s.njobs);
	ck_assert_uint_eq(p.vectors, vectors);
	char victim[1024];
	snprintf(victim, sizeof victim, "%s/%s", one, s.jobs[3].path);
	size_t len;
	char *text = read_all(victim, &len);
	text[len - 80] ^= 1;
	write_text(victim, text);
	free(text);
	ck_assert_int_eq(fpref_golden_generate(&s, one, 0, 1, 1, NULL, NULL, &p, err, sizeof err), 0);
	ck_assert_uint_eq(p.skipped, s.njobs - 1);
	fingerprint_hex(one, h2, &f2);
	ck_assert_str_eq(h1, h2);
	/* each file reads back, and the oracle agrees with every vector */
	for (size_t k = 0; k < s.njobs; k++) {
		snprintf(victim, sizeof victim, "%s/%s", one, s.jobs[k].path);
		struct fpref_golden_file g;
		struct fpref_golden_job j;
		struct fpref_golden_results r;
		struct fpref_verify_report rep;
		struct fpref_verify_options o = { -1, -1, 3, NULL, NULL };
		ck_assert_msg(fpref_golden_read(victim, &g, err, sizeof err) == 0, "%s", err);
		ck_assert_msg(fpref_golden_job_of(&g, &j, err, sizeof err) == 0, "%s", err);
		ck_assert_int_eq(j.kind, s.jobs[k].kind);
		ck_assert_str_eq(j.out.name, s.jobs[k].out.name);
		ck_assert_int_eq(fpref_golden_results_oracle(&g, &j, &r, err, sizeof err), 0);
		ck_assert_int_eq(fpref_golden_verify(&g, &j, &r, &o, &rep, err, sizeof err), 0);
		ck_assert_uint_gt(rep.cases, 0);
		ck_assert_uint_eq(rep.exact, rep.cases);
		fpref_golden_verify_report_free(&rep);
		/* the same results as a kernel would save them: a .npy of patterns */
		size_t bytes = fpref_emu_element_bytes(&j.out), shape[1] = { r.n };
		unsigned char *packed = malloc(r.n * bytes);
		for (size_t i = 0; i < r.n; i++)
			memcpy(packed + i * bytes, &r.bits[i], bytes);
		char npy[1100];
		snprintf(npy, sizeof npy, "%s/results.npy", base);
		ck_assert_int_eq(fpref_npy_write(npy, bytes == 1 ? "|u1" : bytes == 2 ? "<u2" : bytes == 4 ? "<u4" : "<u8", shape,
						 1, packed, bytes, err, sizeof err), 0);
		free(packed);
		struct fpref_golden_results from_npy;
		ck_assert_msg(fpref_golden_results_read(npy, &g, &j, &from_npy, err, sizeof err) == 0, "%s", err);
		ck_assert_int_eq(fpref_golden_verify(&g, &j, &from_npy, &o, &rep, err, sizeof err), 0);
		ck_assert_uint_eq(rep.exact, rep.cases);
		fpref_golden_verify_report_free(&rep);
		fpref_golden_results_free(&from_npy);
		fpref_golden_results_free(&r);
		fpref_golden_file_free(&g);
	}
	fpref_golden_suite_free(&s);
	char command[600];
	snprintf(command, sizeof command, "rm -rf '%s'", base);
	ck_assert_int_eq(system(command), 0);
}
END_TEST

START_TEST(damaged_files_are_refused)
{
	char dir[] = "/tmp/fpref-read.XXXXXX", path[256], err[1024];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/g.txt", dir);
	static const char header[] = "# fpref golden vectors, format 1\n# op add\n# formats float8_e4m3fn\n"
				     "# env round=rne overflow=ieee ftz=off daz=off tininess=after (rne)\n"
				     "# columns a b result flags\n";
	static const char body[] = "3C 3C 44 00\n01 80 01 00\n";
	char hex[65], text[1024];
	sha_hex(body, strlen(body), hex);
	snprintf(text, sizeof text, "%s%s# sha256 %s\n", header, body, hex);
	write_text(path, text);
	struct fpref_golden_file g;
	ck_assert_int_eq(fpref_golden_read(path, &g, err, sizeof err), 0);
	ck_assert_uint_eq(g.nlines, 2);
	ck_assert_str_eq(g.op, "add");
	fpref_golden_file_free(&g);
	static const struct {
		const char *replace, *with, *says;
		size_t cut; /* bytes cut from the end */
	} bad[] = {
		{ "44 00", "45 00", "checksum mismatch", 0 },
		{ "# fpref golden", "# frpef golden", "not a golden file", 0 },
		{ NULL, NULL, "truncated", 30 },
		{ NULL, NULL, "incomplete", 1 },
		{ "# op add\n", "", "bad header", 0 },
		{ "01 80 01 00\n", "01 80 01 00\n# note\n", "inside the body", 0 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char t[1024];
		snprintf(t, sizeof t, "%s", text);
		if (bad[i].replace) {
			char *at = strstr(t, bad[i].replace), rest[1024];
			snprintf(rest, sizeof rest, "%s", at + strlen(bad[i].replace));
			snprintf(at, sizeof t - (size_t)(at - t), "%s%s", bad[i].with, rest);
		}
		t[strlen(t) - bad[i].cut] = '\0';
		write_text(path, t);
		err[0] = '\0';
		ck_assert_int_eq(fpref_golden_read(path, &g, err, sizeof err), -1);
		ck_assert_msg(strstr(err, bad[i].says) && strstr(err, "g.txt"), "case %zu: '%s'", i, err);
	}
	remove(path);
	rmdir(dir);
}
END_TEST

/* A format with options goes whole into a suite list in brackets; without
 * them the message says so.  A line too long for the reader is refused with
 * its number, not split into a second line (a comment's tail made a job). */
START_TEST(suite_syntax)
{
	char dir[] = "/tmp/fpref-syntax.XXXXXX", path[256], err[1024];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/s.suite", dir);
	struct fpref_golden_suite s;
	write_text(path, "suite x\nop add [e5m3,subnormals=off],float16,[e3m2,bias=2,unsigned] rne edge\n");
	ck_assert_msg(fpref_golden_suite_read(path, &s, err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(s.njobs, 3);
	ck_assert_str_eq(s.jobs[0].path, "add/e5m3,subnormals=off.rne.txt");
	ck_assert(!s.jobs[0].in.subnormals);
	ck_assert_str_eq(s.jobs[1].in.name, "float16");
	ck_assert_int_eq(s.jobs[2].in.bias, 2);
	ck_assert(!s.jobs[2].in.is_signed);
	fpref_golden_suite_free(&s);
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "suite x\nop add e5m3,subnormals=off rne edge\n", "in brackets" },
		{ "suite x\nop add [e5m3,subnormals=off rne edge\n", "without its ']'" },
		{ "suite x\nop add [e5m3]x,float16 rne edge\n", "without its ']'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_text(path, bad[i].text);
		err[0] = '\0';
		ck_assert_int_eq(fpref_golden_suite_read(path, &s, err, sizeof err), -1);
		ck_assert_msg(strstr(err, bad[i].says) && strstr(err, "s.suite:2"), "case %zu: '%s'", i, err);
	}
	char *text = malloc(4000);
	int n = snprintf(text, 4000, "suite x\n# ");
	memset(text + n, 'x', 3000);
	snprintf(text + n + 3000, 4000 - (size_t)n - 3000, " op add float4_e2m1fn rne edge\n");
	write_text(path, text);
	free(text);
	err[0] = '\0';
	ck_assert_int_eq(fpref_golden_suite_read(path, &s, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "s.suite:2: line too long"), "'%s'", err);
	remove(path);
	rmdir(dir);
}
END_TEST

static const char io_suite[] = "suite io\n"
			       "op add,mul float4_e2m1fn rne exhaustive\n"
			       "convert float4_e2m1fn float8_e4m3fn,float16 rne exhaustive\n"
			       "dot h100 float8_e4m3fn float32 random:5:4\n";

static void rm_rf(const char *dir)
{
	char command[600];
	snprintf(command, sizeof command, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(command), 0);
}

/* A suite from text, written to base/s.suite and read. */
static void suite_in(const char *base, const char *text, struct fpref_golden_suite *s)
{
	char path[512], err[1024];
	snprintf(path, sizeof path, "%s/s.suite", base);
	write_text(path, text);
	ck_assert_msg(fpref_golden_suite_read(path, s, err, sizeof err) == 0, "%s", err);
}

/* Format 2: the header carries the descriptors and the flags legend, and
 * the checksum covers it: "# op add" edited to "# op mul" is damage. */
START_TEST(header_in_checksum)
{
	char base[] = "/tmp/fpref-hdr.XXXXXX", path[512], err[2048];
	ck_assert_ptr_nonnull(mkdtemp(base));
	struct fpref_golden_suite s;
	suite_in(base, io_suite, &s);
	struct fpref_golden_progress p;
	ck_assert_int_eq(fpref_golden_generate(&s, base, 0, 1, 1, NULL, NULL, &p, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/add/float4_e2m1fn.rne.txt", base);
	size_t len;
	char *text = read_all(path, &len);
	ck_assert_ptr_nonnull(strstr(text, "# fpref golden vectors, format 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# descriptor float4_e2m1fn exp=2 man=1 bias=1 specials=none subnormals=on "
					   "zero=on signed bits=4\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# flags hex, the OR of inexact 01 underflow 02 overflow 04 infinite 08 invalid 10"));
	char *op = strstr(text, "# op add\n");
	ck_assert_ptr_nonnull(op);
	memcpy(op, "# op mul\n", 9);
	write_text(path, text);
	free(text);
	struct fpref_golden_file g;
	err[0] = '\0';
	ck_assert_int_eq(fpref_golden_read(path, &g, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "checksum mismatch"), "'%s'", err);
	fpref_golden_suite_free(&s);
	rm_rf(base);
}
END_TEST

static void generate_into(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count)
{
	char err[2048];
	struct fpref_golden_progress p;
	mkdir(dir, 0777);
	ck_assert_msg(fpref_golden_generate(s, dir, index, count, 1, NULL, NULL, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(fpref_golden_write_manifest(s, dir, index, count, err, sizeof err) == 0, "%s", err);
}

/* Shard manifests merged give the unsharded MANIFEST byte for byte, arrays
 * included after their file; a folder is checked against its MANIFEST. */
START_TEST(manifests)
{
	char base[] = "/tmp/fpref-manifest.XXXXXX", path[512], whole[300], shards[300], err[2048];
	ck_assert_ptr_nonnull(mkdtemp(base));
	struct fpref_golden_suite s;
	suite_in(base, io_suite, &s);
	s.npy = true;
	snprintf(whole, sizeof whole, "%s/whole", base);
	snprintf(shards, sizeof shards, "%s/shards", base);
	generate_into(&s, whole, 0, 1);
	for (unsigned i = 0; i < 3; i++)
		generate_into(&s, shards, i, 3);
	ck_assert_msg(fpref_golden_merge_manifests(&s, shards, err, sizeof err) == 0, "%s", err);
	size_t la, lb, listed;
	snprintf(path, sizeof path, "%s/MANIFEST", whole);
	char *a = read_all(path, &la);
	snprintf(path, sizeof path, "%s/MANIFEST", shards);
	char *b = read_all(path, &lb);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(a, b, la), 0);
	/* 4 files with 3 arrays each, the dot file with 2 */
	ck_assert_ptr_nonnull(strstr(a, "  add/float4_e2m1fn.rne.txt\n"));
	ck_assert_ptr_nonnull(strstr(a, "  add/float4_e2m1fn.rne.flags.npy\n"));
	ck_assert_ptr_nonnull(strstr(a, "  dot/h100.float8_e4m3fn-float32.results.npy\n"));
	ck_assert_ptr_null(strstr(a, "dot/h100.float8_e4m3fn-float32.flags.npy"));
	ck_assert(strstr(a, "add/float4_e2m1fn.rne.txt") < strstr(a, "add/float4_e2m1fn.rne.inputs.npy"));
	free(a);
	free(b);
	ck_assert_int_eq(fpref_golden_manifest_check(whole, &listed, err, sizeof err), 0);
	ck_assert_uint_eq(listed, 4 * 4 + 3);
	/* a shard manifest missing: no merge */
	snprintf(path, sizeof path, "%s/MANIFEST.shard-1-of-3", shards);
	remove(path);
	err[0] = '\0';
	ck_assert_int_eq(fpref_golden_merge_manifests(&s, shards, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "MANIFEST.shard-1-of-3"), "'%s'", err);
	/* missing, changed, extra */
	snprintf(path, sizeof path, "%s/mul/float4_e2m1fn.rne.txt", whole);
	size_t len;
	char *text = read_all(path, &len);
	remove(path);
	ck_assert_int_eq(fpref_golden_manifest_check(whole, &listed, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "mul/float4_e2m1fn.rne.txt") && strstr(err, "missing"), "'%s'", err);
	text[len - 70] ^= 1;
	write_text(path, text);
	ck_assert_int_eq(fpref_golden_manifest_check(whole, &listed, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "mul/float4_e2m1fn.rne.txt") && strstr(err, "changed"), "'%s'", err);
	text[len - 70] ^= 1;
	write_text(path, text);
	snprintf(path, sizeof path, "%s/mul/extra.txt", whole);
	write_text(path, text);
	free(text);
	ck_assert_int_eq(fpref_golden_manifest_check(whole, &listed, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "mul/extra.txt") && strstr(err, "does not list"), "'%s'", err);
	remove(path);
	ck_assert_int_eq(fpref_golden_manifest_check(whole, &listed, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/MANIFEST", whole);
	remove(path);
	ck_assert_int_eq(fpref_golden_manifest_check(whole, &listed, err, sizeof err), 1);
	fpref_golden_suite_free(&s);
	rm_rf(base);
}
END_TEST

/* A run with arrays over a folder made without them makes the arrays of
 * the files already complete, the same bytes as a run with arrays. */
START_TEST(arrays_for_complete_files)
{
	char base[] = "/tmp/fpref-arrays.XXXXXX", plain[300], npy[300], err[2048];
	ck_assert_ptr_nonnull(mkdtemp(base));
	struct fpref_golden_suite s;
	suite_in(base, io_suite, &s);
	snprintf(plain, sizeof plain, "%s/plain", base);
	snprintf(npy, sizeof npy, "%s/npy", base);
	generate_into(&s, plain, 0, 1);
	s.npy = true;
	generate_into(&s, npy, 0, 1);
	struct fpref_golden_progress p;
	ck_assert_int_eq(fpref_golden_generate(&s, plain, 0, 1, 2, NULL, NULL, &p, err, sizeof err), 0);
	ck_assert_uint_eq(p.skipped, s.njobs);
	ck_assert_uint_eq(p.arrays_added, s.njobs);
	ck_assert_int_eq(fpref_golden_write_manifest(&s, plain, 0, 1, err, sizeof err), 0);
	char h1[65], h2[65];
	size_t f1, f2;
	fingerprint_hex(plain, h1, &f1);
	fingerprint_hex(npy, h2, &f2);
	ck_assert_uint_eq(f1, 1 + 4 * 4 + 3);
	ck_assert_str_eq(h1, h2);
	ck_assert_int_eq(fpref_golden_generate(&s, plain, 0, 1, 1, NULL, NULL, &p, err, sizeof err), 0);
	ck_assert_uint_eq(p.arrays_added, 0);
	fpref_golden_suite_free(&s);
	rm_rf(base);
}
END_TEST

/* The error against the exact value leaves out saturated cases (3.4e38 to
 * 448) and zero golden values, counted apart; results without flags are
 * judged on their values. */
START_TEST(verify_apart_and_without_flags)
{
	char base[] = "/tmp/fpref-apart.XXXXXX", path[512], err[2048];
	ck_assert_ptr_nonnull(mkdtemp(base));
	struct fpref_golden_suite s;
	suite_in(base, "suite apart\nconvert float32 float8_e4m3fn rne+sat edge\n", &s);
	struct fpref_golden_progress p;
	ck_assert_int_eq(fpref_golden_generate(&s, base, 0, 1, 1, NULL, NULL, &p, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/%s", base, s.jobs[0].path);
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	struct fpref_golden_results r;
	struct fpref_verify_report rep;
	struct fpref_verify_options o = { -1, -1, 3, NULL, NULL };
	ck_assert_int_eq(fpref_golden_read(path, &g, err, sizeof err), 0);
	ck_assert_int_eq(fpref_golden_job_of(&g, &j, err, sizeof err), 0);
	ck_assert_int_eq(fpref_golden_results_oracle(&g, &j, &r, err, sizeof err), 0);
	ck_assert_int_eq(fpref_golden_verify(&g, &j, &r, &o, &rep, err, sizeof err), 0);
	ck_assert_uint_eq(rep.exact, rep.cases);
	ck_assert_uint_eq(rep.with_flags, rep.cases);
	ck_assert_uint_gt(rep.saturated, 0);
	ck_assert_uint_gt(rep.zero_golden, 0);
	ck_assert_uint_eq(rep.measured_exact + rep.saturated + rep.zero_golden + rep.nonfinite, rep.cases);
	ck_assert_msg(rep.max_ulps_exact <= 0.5, "max %g ulp against the exact: correctly rounded is at most 0.5",
		      rep.max_ulps_exact);
	size_t measured = rep.measured_exact;
	fpref_golden_verify_report_free(&rep);
	/* the same values without flags, and one result with other flags: no failure */
	for (size_t i = 0; i < r.n; i++)
		r.flags[i] = -1;
	ck_assert_int_eq(fpref_golden_verify(&g, &j, &r, &o, &rep, err, sizeof err), 0);
	ck_assert_uint_eq(rep.with_flags, 0);
	ck_assert_uint_eq(rep.exact, rep.cases);
	ck_assert_uint_eq(rep.by_kind[FPREF_MISMATCH_FLAGS], 0);
	ck_assert_uint_eq(rep.measured_exact, measured);
	fpref_golden_verify_report_free(&rep);
	fpref_golden_results_free(&r);
	fpref_golden_file_free(&g);
	fpref_golden_suite_free(&s);
	rm_rf(base);
}
END_TEST

/* Two writers of one path at once: each its own temporary, both commit,
 * the path holds one of them whole, and no temporary is left. */
START_TEST(atomic_temporaries_are_unique)
{
	char dir[] = "/tmp/fpref-atomic.XXXXXX", path[256], err[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/f.txt", dir);
	struct fpref_atomic a = { 0 }, b = { 0 };
	ck_assert_int_eq(fpref_atomic_open(&a, path, err, sizeof err), 0);
	ck_assert_int_eq(fpref_atomic_open(&b, path, err, sizeof err), 0);
	ck_assert_str_ne(a.tmp, b.tmp);
	ck_assert_ptr_nonnull(strstr(a.tmp, "/.f.txt."));
	fputs("first\n", a.f);
	fputs("second\n", b.f);
	ck_assert_int_eq(fpref_atomic_commit(&a, 1, err, sizeof err), 0);
	ck_assert_int_eq(fpref_atomic_commit(&b, 1, err, sizeof err), 0);
	size_t len;
	char *text = read_all(path, &len);
	ck_assert_str_eq(text, "second\n");
	free(text);
	char h[65];
	size_t files;
	fingerprint_hex(dir, h, &files); /* aborts on a leftover temporary */
	ck_assert_uint_eq(files, 1);
	remove(path);
	rmdir(dir);
}
END_TEST

START_TEST(mismatch_classes)
{
	struct fpref_format e4m3 = test_format("e4m3"), f16 = test_format("f16");
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x44, 0, 0x45, 1), FPREF_MISMATCH_DIRECTION);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x44, 0, 0x43, -1), FPREF_MISMATCH_DIRECTION);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x44, 0, 0x44, 1), FPREF_MISMATCH_FLAGS);
	/* E4M3FN has no inf: its overflow is NaN, and saturation is max finite for NaN */
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x7F, 5, 0x7E, 5), FPREF_MISMATCH_MAX_FOR_NAN);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x7E, 5, 0x7F, 5), FPREF_MISMATCH_NAN_FOR_MAX);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x01, 3, 0x00, 3), FPREF_MISMATCH_FLUSHED);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x00, 3, 0x01, 3), FPREF_MISMATCH_NOT_FLUSHED);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x00, 0, 0x80, 0), FPREF_MISMATCH_ZERO_SIGN);
	ck_assert_int_eq(fpref_golden_classify(&e4m3, 0x01, 0, 0x81, 0), FPREF_MISMATCH_OTHER);
	ck_assert_int_eq(fpref_golden_classify(&f16, 0x7E00, 16, 0x7FFF, 16), FPREF_MISMATCH_NAN_ENCODING);
	ck_assert_int_eq(fpref_golden_classify(&f16, 0x7C00, 5, 0x7BFF, 5), FPREF_MISMATCH_SATURATION);
	ck_assert_int_eq(fpref_golden_classify(&f16, 0x7BFF, 5, 0x7C00, 5), FPREF_MISMATCH_INF_FOR_MAX);
	/* a NaN (inf - inf) given as max finite, in a format with inf: what it is, not saturation */
	ck_assert_int_eq(fpref_golden_classify(&f16, 0x7E00, 16, 0x7BFF, 16), FPREF_MISMATCH_MAX_FOR_NAN);
	ck_assert_int_eq(fpref_golden_classify(&f16, 0x3C00, 0, 0x4000, 0), FPREF_MISMATCH_OTHER);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("golden");
	TCase *tc = tcase_create("golden");
	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, suite_errors);
	tcase_add_test(tc, generation_is_deterministic);
	tcase_add_test(tc, damaged_files_are_refused);
	tcase_add_test(tc, mismatch_classes);
	tcase_add_test(tc, suite_syntax);
	tcase_add_test(tc, header_in_checksum);
	tcase_add_test(tc, manifests);
	tcase_add_test(tc, arrays_for_complete_files);
	tcase_add_test(tc, verify_apart_and_without_flags);
	tcase_add_test(tc, atomic_temporaries_are_unique);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
