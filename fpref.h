/* fpref — bit-exact reference for the number formats of machine learning.
 * The umbrella header: formats, environments, the MPFR oracle and the
 * integer emulator. */
#ifndef FPREF_H
#define FPREF_H

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_op.h"
#include "fpref_ref.h"
#include "fpref_emu.h"
#include "fpref_emu_tc.h"
#include "fpref_emu_lossscale.h"
#include "fpref_formats_npy.h"
#include "fpref_golden.h"
#include "fpref_golden_mutants.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_ref_scale_mx.h"
#include "fpref_golden_probe.h"

#endif
