/* fpref — bit-exact reference for the number formats of machine learning.
 * The umbrella header: every public header of every layer (installed
 * under include/fpref/).  It includes the oracle's, which need mpfr.h;
 * an emulator-only program includes the formats' and the emulator's
 * headers alone (README.md, "Using the library"). */
#ifndef FPREF_H
#define FPREF_H

/* formats/: what a format is, the environment, data files */
#include "fpref_format.h"
#include "fpref_env.h"
#include "fpref_op.h"
#include "fpref_tc_model.h"
#include "fpref_npy.h"
#include "fpref_file.h"
#include "fpref_scale.h"
/* ref/: the MPFR oracle (needs mpfr.h) */
#include "fpref_ref.h"
#include "fpref_ref_scale_mx.h"
#include "fpref_scale_ref.h"
/* emu/: the integer emulator */
#include "fpref_emu.h"
#include "fpref_tc.h"
#include "fpref_lossscale.h"
#include "fpref_scale_mx.h"
#include "fpref_scale_emu.h"
#include "fpref_quant_report.h"
/* golden/: vectors, suites, probes, mutants */
#include "fpref_golden.h"
#include "fpref_probe.h"
#include "fpref_mutants.h"

#endif
