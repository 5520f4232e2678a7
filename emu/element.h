/* Little-endian array elements of 1, 2, 4 or 8 bytes, shared by the
 * emulator's array paths.  Internal: not installed. */
#ifndef FPREF_EMU_ELEMENT_H
#define FPREF_EMU_ELEMENT_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t fpref_element_load(const void *in, size_t i, size_t bytes)
{
	const unsigned char *p = (const unsigned char *)in + i * bytes;
	uint64_t v = 0;
	for (size_t b = 0; b < bytes; b++)
		v |= (uint64_t)p[b] << (8 * b);
	return v;
}

static inline void fpref_element_store(void *out, size_t i, size_t bytes, uint64_t v)
{
	unsigned char *p = (unsigned char *)out + i * bytes;
	for (size_t b = 0; b < bytes; b++)
		p[b] = (unsigned char)(v >> (8 * b));
}

#endif
