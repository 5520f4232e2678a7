/* fpref — NumPy .npy files (format versions 1.0, 2.0 and 3.0): arrays of
 * fixed-size little-endian items, read whole and written atomically. */
#ifndef FPREF_NPY_H
#define FPREF_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FPREF_NPY_MAX_DIMS 8

struct fpref_npy {
	char kind;        /* the descr's type character: 'f', 'u', 'i', 'V', 'b' ... */
	size_t item_bytes;
	int ndim;
	size_t shape[FPREF_NPY_MAX_DIMS];
	size_t count;     /* product of the shape */
	void *data;       /* count * item_bytes bytes, little-endian, C order */
};

/* Read a whole file.  Big-endian items are swapped; Fortran order, object
 * arrays, structured dtypes and sizes that disagree with the file are
 * refused.  0, or -1 with a message naming the file and the problem. */
int fpref_npy_read(const char *path, struct fpref_npy *a, char *err, size_t errlen);
void fpref_npy_free(struct fpref_npy *a);

/* Write items (little-endian, C order) under descr such as "<f4" or "|u1":
 * to a temporary file beside path, then renamed over it, so that path is
 * either untouched or complete.  0, or -1 with a message. */
int fpref_npy_write(const char *path, const char *descr, const size_t *shape, int ndim, const void *data,
		    size_t item_bytes, char *err, size_t errlen);

/* How an array's items read, for a caller that wants values of a format:
 * FPREF_NPY_PATTERNS when patterns_of is given and the items (u, i or V)
 * have its container's byte width (then they are its bit patterns);
 * otherwise FPREF_NPY_VALUES with *values the format of the items' values:
 * float16, float32, float64 for f2, f4, f8, and bfloat16 for V2 (how
 * ml_dtypes saves bfloat16); else FPREF_NPY_UNUSABLE.  This is the one
 * place where an .npy item type becomes a format. */
enum fpref_npy_items { FPREF_NPY_UNUSABLE, FPREF_NPY_VALUES, FPREF_NPY_PATTERNS };
enum fpref_npy_items fpref_npy_item_format(const struct fpref_npy *a, const struct fpref_format *patterns_of,
					   const struct fpref_format **values);
/* Item i, zero-extended to 64 bits. */
uint64_t fpref_npy_item(const struct fpref_npy *a, size_t i);
/* The descr that holds patterns of f: "<f2", "<f4", "<f8" for float16,
 * float32, float64 (so NumPy reads values), unsigned items of the
 * container's width otherwise. */
const char *fpref_npy_descr_of(const struct fpref_format *f);

#ifdef __cplusplus
}
#endif
#endif
