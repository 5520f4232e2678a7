/* fpref — bit-exact reference for the number formats of machine learning.
 * The umbrella header: formats, environments, the MPFR oracle and the
 * integer emulator. */
#ifndef FPREF_H
#define FPREF_H

#include "fpref_format.h"
#include "fpref_env.h"
#include "fpref_op.h"
#include "fpref_ref.h"
#include "fpref_emu.h"
#include "fpref_tc.h"
#include "fpref_lossscale.h"
#include "fpref_npy.h"
#include "fpref_golden.h"
#include "fpref_golden_gemm.h"
#include "fpref_mutants.h"
#include "fpref_scale_mx.h"
#include "fpref_ref_scale_mx.h"
#include "fpref_probe.h"

#endif
