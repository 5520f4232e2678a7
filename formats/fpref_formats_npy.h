/* fpref — NumPy .npy files (format versions 1.0, 2.0 and 3.0): arrays of
 * fixed-size little-endian items, read whole and written atomically. */
#ifndef FPREF_NPY_H
#define FPREF_NPY_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif
#endif
