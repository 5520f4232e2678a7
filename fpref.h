/* fpref — bit-exact reference for the number formats of machine learning.
 * The umbrella header: every public header of every layer (installed
 * under include/fpref/).  It includes the oracle's, which need mpfr.h;
 * an emulator-only program includes the formats' and the emulator's
 * headers alone (README.md, "Using the library"). */
#ifndef FPREF_H
#define FPREF_H

/* formats/: what a format is, the environment, data files */
#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_op.h"
#include "fpref_formats_tc_model.h"
#include "fpref_formats_npy.h"
#include "fpref_formats_file.h"
#include "fpref_formats_scale.h"
#include "fpref_formats_policy.h"
#include "fpref_formats_e8m0.h"
/* ref/: the MPFR oracle (needs mpfr.h) */
#include "fpref_ref.h"
#include "fpref_ref_exact.h"
#include "fpref_ref_scale_mx.h"
#include "fpref_ref_scale.h"
#include "fpref_ref_e8m0.h"
/* emu/: the integer emulator */
#include "fpref_emu.h"
#include "fpref_emu_tc.h"
#include "fpref_emu_lossscale.h"
#include "fpref_emu_scale_mx.h"
#include "fpref_emu_scale.h"
#include "fpref_emu_quant_report.h"
#include "fpref_emu_e8m0.h"
#include "fpref_emu_quantize.h"
#include "fpref_emu_tree.h"
/* golden/: vectors, suites, probes, mutants */
#include "fpref_golden.h"
#include "fpref_golden_sweep.h"
#include "fpref_golden_gemm.h"
#include "fpref_golden_probe.h"
#include "fpref_golden_mutants.h"
#include "fpref_golden_diagnose.h"
#include "fpref_golden_lab.h"
#include "fpref_golden_order.h"
#include "fpref_golden_svg.h"
#include "fpref_golden_draw.h"

#endif
