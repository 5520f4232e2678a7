/* A picture written out: the SVG text the library composed
 * (fpref_golden_svg.h, fpref_golden_draw.h), complete before its first
 * byte goes to its file or to standard output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

int draw_save(const char *cmd, const char *path, const char *text)
{
	FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!out) {
		cli_fail(cmd, "cannot write '%s': %s", path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	bool bad = fputs(text, out) == EOF || ferror(out) != 0;
	if (out != stdout)
		bad = fclose(out) != 0 || bad;
	else
		bad = fflush(out) != 0 || bad;
	if (bad) {
		cli_fail(cmd, "cannot write '%s'", path);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int draw_write(struct fpref_svg *s, const char *cmd, const char *path)
{
	char *text;
	if (fpref_golden_svg_finish(s, &text) != 0) {
		cli_fail(cmd, "out of memory");
		return CLI_EXIT_FAIL;
	}
	int status = draw_save(cmd, path, text);
	free(text);
	return status;
}
