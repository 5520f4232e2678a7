/* fpref — bit-exact reference for the number formats of machine learning.
 * The umbrella header: formats, environments and the MPFR oracle. */
#ifndef FPREF_H
#define FPREF_H

#include "fpref_format.h"
#include "fpref_env.h"
#include "fpref_ref.h"

#endif
