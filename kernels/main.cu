// fpref-cuda: runs one kernel of the table on a golden file's inputs and
// writes a results file for `fpref verify`. Exit status: 0 done, 3 not
// supported on this GPU (or not built in), 1 CUDA or I/O failure, 2 usage
// or a bad golden file.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "io.h"
#include "kernels.h"

enum { EXIT_UNSUPPORTED = 3, EXIT_USAGE = 2 };

static int usage(void)
{
	fprintf(stderr, "usage: fpref-cuda --list\n"
			"       fpref-cuda --device\n"
			"       fpref-cuda --kernel NAME --golden FILE --out FILE [--cpu-echo] [--driver TEXT]\n"
			"--list: the kernels, one a line: name, golden file (relative to gpu-check's golden folder),\n"
			"        least compute capability, what it runs.\n"
			"--cpu-echo: no GPU; the results are the golden file's own (tests the file path end to end).\n");
	return EXIT_USAGE;
}

static const struct fk_kernel *find_kernel(const char *name)
{
	for (size_t i = 0; i < fk_kernel_count; i++)
		if (strcmp(fk_kernels[i].name, name) == 0)
			return &fk_kernels[i];
	return NULL;
}

static void version_text(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

struct device {
	char gpu[320], driver[64], toolkit[64];
	int cc;
};

static int device_info(struct device *d, char *err, size_t errlen)
{
	int dev = 0, drv = 0, rt = 0;
	cudaDeviceProp p;
	FK_CUDA(cudaGetDevice(&dev));
	FK_CUDA(cudaGetDeviceProperties(&p, dev));
	FK_CUDA(cudaDriverGetVersion(&drv));
	FK_CUDA(cudaRuntimeGetVersion(&rt));
	d->cc = p.major * 10 + p.minor;
	snprintf(d->gpu, sizeof d->gpu, "%s (sm_%d)", p.name, d->cc);
	char a[16], b[16];
	version_text(drv, a, sizeof a);
	version_text(rt, b, sizeof b);
	snprintf(d->driver, sizeof d->driver, "CUDA %s driver API", a);
	snprintf(d->toolkit, sizeof d->toolkit, "CUDA runtime %s, built with nvcc %d.%d", b, __CUDACC_VER_MAJOR__,
		 __CUDACC_VER_MINOR__);
	return FK_OK;
}

static int list(void)
{
	for (size_t i = 0; i < fk_kernel_count; i++)
		printf("%s\t%s\t%d\t%s\n", fk_kernels[i].name, fk_kernels[i].golden, fk_kernels[i].min_cc, fk_kernels[i].what);
	return 0;
}

static int show_device(void)
{
	char err[512];
	struct device d;
	if (device_info(&d, err, sizeof err) != FK_OK) {
		fprintf(stderr, "fpref-cuda: no usable GPU: %s\n", err);
		return 1;
	}
	printf("gpu %s\ncc %d\ndriver %s\ntoolkit %s\n", d.gpu, d.cc, d.driver, d.toolkit);
	return 0;
}

// The golden file must be the one the kernel's table row names: the same
// op, A's format, B's format and output (a same-format kernel refuses a file
// of two formats, and a mixed kernel the swapped pair's file).
static int golden_matches(const struct fk_kernel *k, const struct fk_golden *g, const char *path)
{
	int dot = strstr(k->golden, "/dot/") != NULL;
	struct fk_formats want;
	if (fk_formats_parse(k->formats, 0, &want) != 0) {
		fprintf(stderr, "fpref-cuda: kernel %s: bad formats '%s' in the table\n", k->name, k->formats);
		return 0;
	}
	if (strcmp(g->op, dot ? "dot" : "convert") != 0 || strcmp(g->fmt.a, want.a) != 0 || strcmp(g->fmt.b, want.b) != 0 ||
	    strcmp(g->fmt.out, want.out) != 0) {
		fprintf(stderr, "fpref-cuda: %s is '%s %s', kernel %s wants '%s %s' (its file is %s)\n", path, g->op, g->formats,
			k->name, dot ? "dot" : "convert", k->formats, k->golden);
		return 0;
	}
	return 1;
}

static int run_kernel(const struct fk_kernel *k, const char *golden, const char *out, int echo, const char *driver)
{
	char err[1024] = "";
	struct fk_golden g;
	if (fk_golden_read(golden, &g, err, sizeof err) != 0) {
		fprintf(stderr, "fpref-cuda: %s\n", err);
		return EXIT_USAGE;
	}
	if (!golden_matches(k, &g, golden)) {
		fk_golden_free(&g);
		return EXIT_USAGE;
	}
	struct device d = { "none (--cpu-echo: the golden results copied)", "none", "none", 0 };
	struct fk_job job = { &g, (uint64_t *)calloc(g.lines, sizeof(uint64_t)), "" };
	int status = job.out ? FK_OK : FK_ERROR;
	if (!job.out)
		snprintf(err, sizeof err, "out of memory");
	if (status == FK_OK && echo) {
		memcpy(job.out, g.result, g.lines * sizeof *job.out);
		snprintf(job.path, sizeof job.path, "cpu-echo");
	} else if (status == FK_OK) {
		status = device_info(&d, err, sizeof err);
		if (status == FK_OK && d.cc < k->min_cc) {
			snprintf(err, sizeof err, "needs sm_%d or later, this GPU is sm_%d", k->min_cc, d.cc);
			status = FK_UNSUPPORTED;
		}
		if (status == FK_OK)
			status = k->run(k, &job, err, sizeof err);
	}
	if (driver && driver[0])
		snprintf(d.driver, sizeof d.driver, "%s", driver);
	char what[512];
	snprintf(what, sizeof what, "%s: %s", k->name, k->what);
	struct fk_results_header h = { what, job.path, d.gpu, d.driver, d.toolkit };
	if (status == FK_OK && fk_results_write(out, &g, &h, job.out, err, sizeof err) != 0)
		status = FK_ERROR;
	free(job.out);
	fk_golden_free(&g);
	if (status == FK_UNSUPPORTED) {
		printf("%s: not supported on this GPU: %s\n", k->name, err);
		return EXIT_UNSUPPORTED;
	}
	if (status != FK_OK) {
		fprintf(stderr, "fpref-cuda: %s: %s\n", k->name, err);
		return 1;
	}
	printf("%s: %zu vectors -> %s\n", k->name, g.lines, out);
	return 0;
}

int main(int argc, char **argv)
{
	const char *kernel = NULL, *golden = NULL, *out = NULL, *driver = NULL;
	int echo = 0;
	if (argc == 2 && strcmp(argv[1], "--list") == 0)
		return list();
	if (argc == 2 && strcmp(argv[1], "--device") == 0)
		return show_device();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = !strcmp(a, "--kernel") ? &kernel : !strcmp(a, "--golden") ? &golden : !strcmp(a, "--out") ? &out
				  : !strcmp(a, "--driver") ? &driver : NULL;
		if (!strcmp(a, "--cpu-echo"))
			echo = 1;
		else if (slot && i + 1 < argc)
			*slot = argv[++i];
		else {
			fprintf(stderr, "fpref-cuda: unknown or incomplete option '%s'\n", a);
			return usage();
		}
	}
	if (!kernel || !golden || !out)
		return usage();
	const struct fk_kernel *k = find_kernel(kernel);
	if (!k) {
		fprintf(stderr, "fpref-cuda: no kernel '%s' (fpref-cuda --list shows them)\n", kernel);
		return EXIT_USAGE;
	}
	return run_kernel(k, golden, out, echo, driver);
}
