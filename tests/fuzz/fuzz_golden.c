/* Golden files: headers, bodies and checksums, then their lines, then the
 * same bytes read as a results file against a small golden file. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], err[2048];
	fuzz_file(data, size, path, sizeof path);
	struct fpref_golden_file g;
	if (fpref_golden_read(path, &g, err, sizeof err) == 0) {
		struct fpref_golden_job j;
		if (fpref_golden_job_of(&g, &j, err, sizeof err) == 0) {
			struct fpref_golden_line *l = malloc(sizeof *l);
			for (size_t i = 0; l && i < g.nlines; i++)
				fpref_golden_parse_line(&j, g.lines[i], l, err, sizeof err);
			free(l);
		}
		fpref_golden_file_free(&g);
	}
	/* as results for a two-line golden file of E4M3 additions */
	char gpath[160];
	snprintf(gpath, sizeof gpath, "%s.golden", path);
	FILE *f = fopen(gpath, "w");
	if (f) {
		static const char body[] = "3C 3C 44 00\n01 80 01 00\n";
		struct fpref_sha256 sha;
		char hex[65];
		fpref_golden_sha256_init(&sha);
		fpref_golden_sha256_update(&sha, body, sizeof body - 1);
		fpref_golden_sha256_hex(&sha, hex);
		fprintf(f, "# fpref golden vectors, format 1\n# op add\n# formats float8_e4m3fn\n"
			   "# env round=rne overflow=ieee ftz=off daz=off tininess=after (rne)\n"
			   "# columns a b result flags\n%s# sha256 %s\n", body, hex);
		fclose(f);
		if (fpref_golden_read(gpath, &g, err, sizeof err) != 0)
			abort(); /* our own file must read */
		struct fpref_golden_job j;
		struct fpref_golden_results r;
		if (fpref_golden_job_of(&g, &j, err, sizeof err) == 0 &&
		    fpref_golden_results_read(path, &g, &j, &r, err, sizeof err) == 0) {
			struct fpref_verify_options o = { -1, -1, 2 };
			struct fpref_verify_report rep;
			if (fpref_golden_verify(&g, &j, &r, &o, &rep, err, sizeof err) == 0)
				fpref_golden_verify_report_free(&rep);
			fpref_golden_results_free(&r);
		}
		fpref_golden_file_free(&g);
		remove(gpath);
	}
	remove(path);
	return 0;
}
