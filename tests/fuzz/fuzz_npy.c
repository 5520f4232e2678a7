/* .npy files: magic, versions, header dicts, shapes, data sizes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], err[1024];
	fuzz_file(data, size, path, sizeof path);
	struct fpref_npy a;
	if (fpref_npy_read(path, &a, err, sizeof err) == 0) {
		/* what reads must hold exactly count * item_bytes bytes: touch them all */
		volatile uint8_t sum = 0;
		for (size_t i = 0; i < a.count * a.item_bytes; i++)
			sum ^= ((const uint8_t *)a.data)[i];
		(void)sum;
		fpref_npy_free(&a);
	}
	remove(path);
	return 0;
}
