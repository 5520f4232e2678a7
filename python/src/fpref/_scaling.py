"""fpref.quantize and fpref.lossscale: the scaling schemes of `fpref
quantize` and the loss scalers of `fpref lossscale`, at array level.  The
numerics are the library's (emu/scale*.c, emu/lossscale*.c); this module
checks the options as the commands do and shapes the results."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _as_array, _fpref, _torch_codes, convert, format_info

# scheme -> (family, elements it takes as catalogue names, the first the default)
_SCHEMES = {
    "tensor": ("fp8", ()),
    "delayed": ("fp8", ()),
    "tile128": ("fp8", ()),
    "block128": ("fp8", ()),
    "mxfp8": ("mx", ("float8_e4m3fn", "float8_e5m2")),
    "mxfp6": ("mx", ("float6_e2m3fn", "float6_e3m2fn")),
    "mxfp4": ("mx", ("float4_e2m1fn",)),
    "mxint8": ("mx", ("int8",)),
    "nvfp4": ("nvfp4", ("float4_e2m1fn",)),
}


def _blocks(n: int, block: int) -> int:
    return -(-n // block)


@dataclass(frozen=True)
class Quantized:
    """What `fpref quantize` writes and reports, as arrays.

    codes: uint8, x's shape (FP8/FP6/FP4 codes, or INT8's two's complement
    for mxint8); scales: the scheme's scales (float32 scale_inv factors for
    tensor/delayed/tile128/block128; uint8 E8M0 codes for MX; uint8 E4M3
    block scales for nvfp4) in the CLI's shape; dequant: float32, x's shape;
    tensor_scale: nvfp4's FP32 tensor scale S (else None); facts: the FP32
    figures the CLI prints (amax, scale, scale_inv, eps, next_scale ...) as
    np.float32; settings: rule, element_rounding, recipe (where not the
    default), blocks, rounding, seed;
    step_amax, step_scale_inv: delayed scaling's per-step records (float32);
    report: the round trip's error figures (fpref_emu_quant_report_compute, the
    keys of the CLI's JSON "report").  dequant and report are None where
    quantize was asked for the codes alone (codes_only=True)."""
    scheme: str
    format: str
    shape: tuple
    codes: np.ndarray
    scales: np.ndarray
    dequant: Optional[np.ndarray]
    tensor_scale: Optional[np.float32]
    facts: Dict[str, np.float32]
    settings: Dict[str, Union[str, int]]
    step_amax: Optional[np.ndarray]
    step_scale_inv: Optional[np.ndarray]
    report: Optional[Dict[str, Any]]


def _f32_patterns(x: Any) -> np.ndarray:
    """x as FP32 patterns (uint32), as `fpref quantize` reads X.npy: float32
    as it is, float16 and bfloat16 widened exactly, float64 only when every
    element is a float32 exactly (never rounded twice)."""
    tc = _torch_codes(x)
    if tc is not None:  # a torch bfloat16 (or float8) tensor, read as its bit patterns
        if tc[1] != "bfloat16":
            raise TypeError(f"quantize takes float16, bfloat16, float32 or float64 values, not {tc[1]}")
        return convert(x, "float32").reshape(tc[0].shape)
    a = _as_array(x)
    if a.dtype.kind in "ui" or a.dtype.kind == "b":
        raise TypeError(f"quantize takes float values (float16/32/64, bfloat16), not an array of {a.dtype}")
    if a.dtype.kind == "f" and a.dtype.itemsize == 4 and a.dtype.name == "float32":
        return np.ascontiguousarray(a.astype("<f4", copy=False)).view("<u4").reshape(a.shape)
    if a.dtype.name in ("float16", "bfloat16"):
        return _keep_nan_bits(a, convert(a, "float32").reshape(a.shape))
    if a.dtype.name == "float64":
        codes, flags = convert(a, "float32", return_flags=True)
        if np.any(flags & 1):
            i = int(np.flatnonzero(flags & 1)[0])
            raise ValueError(f"quantize: element {i} ({a.reshape(-1)[i]!r}) is not a float32 exactly; "
                             "round it first (x.astype(np.float32)) if that is meant")
        return codes.reshape(a.shape)
    raise TypeError(f"quantize takes float16, bfloat16, float32 or float64 values, not {a.dtype}")


def _keep_nan_bits(a: np.ndarray, out: np.ndarray) -> np.ndarray:
    """A float16/bfloat16 NaN widened as the command widens it (and torch's
    .float()): its sign and fraction bits shifted into FP32's, not the
    canonical NaN that convert gives."""
    src = a.view(np.uint16).astype(np.uint32)
    m = 10 if a.dtype.name == "float16" else 7
    nan = (src & 0x7FFF) > (0x7C00 if m == 10 else 0x7F80)
    if nan.any():
        out = out.copy()
        out[nan] = ((src[nan] & 0x8000) << 16) | 0x7F800000 | ((src[nan] & ((1 << m) - 1)) << (23 - m))
    return out


def _eps_bits(eps: Union[str, float]) -> int:
    if isinstance(eps, str):
        codes = convert([eps], "float32")  # the decimal read exactly, rounded once (as --eps)
    elif isinstance(eps, (int, float, np.floating)) and not isinstance(eps, bool):
        codes = convert(np.float64([eps]), "float32")
    else:
        raise TypeError(f"quantize: eps is a number, not {type(eps).__name__}")
    bits = int(codes[0])
    if bits >= 0x7F800000:
        raise ValueError(f"quantize: eps must be a nonnegative finite number, not {eps!r}")
    return bits


def quantize(x: Any, scheme: str = "tensor", *, format: Optional[str] = None, pow2: Optional[bool] = None,
             recipe: Optional[str] = None, eps: Union[str, float, None] = None, margin: Optional[int] = None,
             history: Optional[int] = None, amax_algo: Optional[str] = None, amax_nan: Optional[str] = None,
             nan: str = "keep", rule: Optional[str] = None, element_rounding: Optional[str] = None,
             two_d: bool = False, sr: bool = False, seed: Optional[int] = None,
             four_over_six: Optional[str] = None, scale_bound: Optional[int] = None,
             rht: Union[str, int, None] = None, rht_fp32: bool = False, sr_bits: Optional[str] = None,
             scale_layout: Optional[str] = None, torch_dtype: Optional[str] = None,
             codes_only: bool = False) -> Quantized:
    """Quantise x with a scaling scheme, as `fpref quantize --scheme SCHEME`
    does (docs/scaling.md, docs/scaling-mx.md): the codes, the scales, the
    dequantised values and the report, in a Quantized.

    scheme: tensor (Transformer Engine current scaling), delayed (TE delayed
    scaling, one step per slice of x's first axis), tile128, block128
    (DeepSeek-V3; recipe="te" for TE's), mxfp8, mxfp6, mxfp4, mxint8 (OCP
    MX; recipe "ocp", the default, "torchao" for torchao 0.18's to_mx or
    "modelopt" for ModelOpt 0.47's MXFP8 E4M3 and MXFP4 E2M1, rule
    "rceil-log2" only; what no library computes is a ValueError), nvfp4 (recipe "te",
    the default, "torchao" (torchao 0.18), "torchao-1level" (its path
    without a per-tensor scale), "modelopt" (ModelOpt 0.47), or the older
    "torchao-02a1bc44" and "modelopt-0ad6e5f0"; docs/scaling-mx.md, "MX
    recipes" and "NVFP4 recipes").  The recipe keywords are the command's
    options: format
    (e4m3|e5m2 for the FP8 schemes, the MX element), pow2, recipe, eps (a
    str is read exactly, as --eps; a float is its own value), margin,
    history, amax_algo, amax_nan (ignore|propagate), nan ("keep" or
    "reject": a NaN or inf input is a ValueError), rule
    (ocp-floor|nv-ceil|rne|ceil|rceil-log2: ceil is torchao's CEIL,
    rceil-log2 the ceiling of an FP32 log2, torchao RCEIL's eager path and
    ModelOpt's), element_rounding (rne|rna), two_d, sr, seed;
    nvfp4's four_over_six (abs_max|mae|mse: the Four Over Six recipe, not
    with recipe=), scale_bound (256, the default, or 448), rht ("te":
    Transformer Engine's sign vector 0xD7E8, or a 16-bit mask, bit i
    negating element i of each 16), rht_fp32 (the transform's output kept
    in FP32, not rounded to BF16), sr_bits ("philox=SEED[:OFFSET[:THREAD[:
    ROUNDS]]]" with sr=True: Transformer Engine's Philox stream, element i
    rounding as value i of convert(..., round="te-nvfp4", sr_bits=...)),
    torch_dtype ("fp32", the default, or "bf16": the dtype torch held x in,
    which decides the NaN its reductions return; nvfp4 with recipe
    "torchao", "torchao-1level" or "modelopt"; --torch-dtype).  The MX
    schemes' and nvfp4's scale_layout ("linear", the default, or "swizzled":
    the scales in cuBLAS's blocked 128x4 layout as torchao and ModelOpt
    swizzle them, shape (128 ceil(rows/128), 4 ceil(cols/4)) of the linear
    scales' rows x cols; not with two_d; --scale-layout) changes only
    Quantized.scales.  codes_only=True makes the codes, the scales and the
    facts alone, as `fpref quantize --no-report`: dequant and report are
    None (the round trip costs several times the quantisation).
    An option the scheme does not take is a ValueError, as on the command
    line.

    >>> q = quantize(np.float32([1.0, -2.0, 448.0]), "tensor")
    >>> q.codes.tolist(), q.scales.tolist(), float(q.facts["amax"])
    ([56, 192, 126], [1.0], 448.0)
    """
    if not isinstance(scheme, str) or scheme not in _SCHEMES:
        raise ValueError(f"quantize: unknown scheme {scheme!r} (choices: {', '.join(_SCHEMES)})")
    family, elements = _SCHEMES[scheme]
    _check_quantize_options(scheme, family, pow2, recipe, eps, margin, history, amax_algo, amax_nan, nan, rule,
                            element_rounding, two_d, sr, seed)
    rht_mask = _check_nvfp4_options(family, recipe, sr, seed, four_over_six, scale_bound, rht, rht_fp32, sr_bits)
    swizzled, torch_bf16 = _check_layout_dtype(scheme, family, recipe, two_d, scale_layout, torch_dtype)
    bits = _f32_patterns(x)
    if bits.ndim < 1 or bits.size == 0:
        raise ValueError(f"quantize: x must have at least one dimension and one element, not shape {bits.shape}")
    if nan == "reject":
        bad = np.flatnonzero((bits.reshape(-1) & 0x7F800000) == 0x7F800000)
        if bad.size:
            i = int(bad[0])
            kind = "NaN" if bits.reshape(-1)[i] & 0x7FFFFF else "infinite"
            raise ValueError(f"quantize: element {i} is {kind} (nan='reject')")
    shape = bits.shape
    cols = shape[-1]
    rows = bits.size // cols
    steps = shape[0]
    if family == "fp8":
        element = format_info(format or "e4m3")["name"]
    elif elements[0] == "int8":
        if format is not None:
            raise ValueError(f"quantize: scheme {scheme} has one element, INT8: format does not apply")
        element = "int8"
    else:
        element = format_info(format or elements[0])["name"]
        if element not in elements:
            raise ValueError(f"quantize: scheme {scheme} takes format {' or '.join(elements)}, not {format!r}")
    if scheme == "delayed" and bits.ndim < 2:
        raise ValueError("quantize: scheme delayed steps along the first axis: x must have at least 2 dimensions "
                         "(steps, ...), not 1")
    if scheme in ("tile128", "block128") and recipe != "te" and pow2:
        raise ValueError("quantize: pow2 belongs to recipe='te'; DeepSeek-V3 scales are amax / 448")
    if scheme == "tensor":
        scales_shape: tuple = (1,)
    elif scheme == "delayed":
        scales_shape = (steps,)
    elif scheme == "tile128":
        scales_shape = shape[:-1] + (_blocks(cols, 128),)
    elif scheme == "block128":
        scales_shape = (_blocks(rows, 128), _blocks(cols, 128))
    elif scheme == "nvfp4" and two_d:
        scales_shape = (_blocks(rows, 16), _blocks(cols, 16))
    else:
        scales_shape = shape[:-1] + (_blocks(cols, 16 if scheme == "nvfp4" else 32),)
    scale_bytes = 4 if family == "fp8" else 1
    d = _fpref.quantize(scheme, element, np.ascontiguousarray(bits.reshape(-1)), steps, rows, cols,
                        int(np.prod(scales_shape)), scale_bytes, -1 if pow2 is None else int(bool(pow2)),
                        recipe == "te", None if eps is None else _eps_bits(eps), 1024 if history is None else history,
                        amax_algo or "", 0 if margin is None else margin, amax_nan or "", rule or "",
                        element_rounding or "", bool(two_d), bool(sr), 0 if seed is None else seed,
                        (recipe or "") if family == "nvfp4" else "", four_over_six or "", scale_bound or 0,
                        rht_mask, bool(rht_fp32), sr_bits, (recipe or "") if family == "mx" else "", torch_bf16,
                        swizzled, bool(codes_only))
    f32 = np.dtype("<f4")
    if swizzled:
        scales_shape = tuple(d["swizzled_shape"])
    scales = np.frombuffer(d["scales"], dtype=f32 if scale_bytes == 4 else np.uint8).reshape(scales_shape)
    settings: Dict[str, Union[str, int]] = d["settings"]  # the command's labels, from the library
    delayed = scheme == "delayed"
    return Quantized(
        scheme=scheme, format=element, shape=tuple(shape),
        codes=np.frombuffer(d["codes"], dtype=np.uint8).reshape(shape),
        scales=scales,
        dequant=None if d["dequant"] is None else np.frombuffer(d["dequant"], dtype=f32).reshape(shape),
        tensor_scale=np.uint32(d["tensor_scale"]).view(np.float32) if family == "nvfp4" else None,
        facts={k: np.uint32(v).view(np.float32) for k, v in d["facts"].items()},
        settings=settings,
        step_amax=np.array(d["step_amax"], dtype=np.uint32).view(np.float32) if delayed else None,
        step_scale_inv=np.array(d["step_scale_inv"], dtype=np.uint32).view(np.float32) if delayed else None,
        report=d["report"])


def _check_layout_dtype(scheme, family, recipe, two_d, scale_layout, torch_dtype) -> tuple:
    """The rules of --scale-layout and --torch-dtype (tools/cmd_quantize.c):
    (swizzled, torch_bf16).  Which nvfp4 recipe takes torch_dtype="bf16" is
    the library's check."""
    def no(what: str) -> None:
        raise ValueError(f"quantize: {what}")

    if scale_layout is not None and scale_layout not in ("linear", "swizzled"):
        no(f"scale_layout must be 'linear' or 'swizzled', not {scale_layout!r}")
    if scale_layout is not None and family == "fp8":
        no(f"scale_layout belongs to the MX schemes and nvfp4, not {scheme}")
    if scale_layout == "swizzled" and two_d:
        no("scale_layout='swizzled' is cuBLAS's layout of 1-D block scales: not with two_d")
    dtypes = {"fp32": False, "float32": False, "bf16": True, "bfloat16": True}
    if torch_dtype is not None and (not isinstance(torch_dtype, str) or torch_dtype not in dtypes):
        no(f"torch_dtype must be 'fp32' or 'bf16' (float32, bfloat16), not {torch_dtype!r}")
    if torch_dtype is not None and family != "nvfp4":
        no(f"torch_dtype belongs to scheme nvfp4, not {scheme}")
    if torch_dtype is not None and recipe is None:
        no("torch_dtype belongs to recipe 'torchao', 'torchao-1level' and 'modelopt'")
    return scale_layout == "swizzled", torch_dtype is not None and dtypes[torch_dtype]


def _check_nvfp4_options(family, recipe, sr, seed, four_over_six, scale_bound, rht, rht_fp32, sr_bits) -> int:
    """The rules of nvfp4's --four-over-six, --scale-bound, --rht, --rht-fp32
    and --sr-bits (tools/cmd_quantize.c); the Hadamard sign mask, -1 for none.
    Which recipe has which option is the library's check."""
    def no(what: str) -> None:
        raise ValueError(f"quantize: {what}")

    given = four_over_six is not None or scale_bound is not None or rht is not None or rht_fp32 or sr_bits is not None
    if family != "nvfp4" and given:
        no("four_over_six, scale_bound, rht, rht_fp32 and sr_bits belong to scheme nvfp4")
    if four_over_six is not None and four_over_six not in ("abs_max", "mae", "mse"):
        no(f"four_over_six must be 'abs_max', 'mae' or 'mse', not {four_over_six!r}")
    if four_over_six is not None and recipe is not None:
        no("four_over_six is its own recipe (the Four Over Six reference's FP32 steps): drop recipe")
    if scale_bound is not None and four_over_six is None:
        no("scale_bound belongs to four_over_six")
    if scale_bound is not None and (isinstance(scale_bound, bool) or scale_bound not in (256, 448)):
        no(f"scale_bound must be 256 or 448, not {scale_bound!r}")
    if rht_fp32 and rht is None:
        no("rht_fp32 belongs to rht")
    mask = -1
    if rht is not None:
        if rht == "te":
            mask = _fpref.NVFP4_TE_RHT_SIGNS
        elif isinstance(rht, int) and not isinstance(rht, bool) and 0 <= rht <= 0xFFFF:
            mask = rht
        else:
            no(f"rht must be 'te' or a sign mask 0 to 0xFFFF, not {rht!r}")
    if sr_bits is not None:
        if not isinstance(sr_bits, str):
            no(f"sr_bits is the text of --sr-bits (philox=SEED[:OFFSET[:THREAD[:ROUNDS]]]), not {sr_bits!r}")
        if not sr:
            no("sr_bits feeds stochastic rounding: it needs sr=True")
        if seed is not None:
            no("seed and sr_bits name two random streams: give one")
    return mask


def _check_quantize_options(scheme, family, pow2, recipe, eps, margin, history, amax_algo, amax_nan, nan, rule,
                            element_rounding, two_d, sr, seed) -> None:
    """The option rules of `fpref quantize` (tools/cmd_quantize.c), as
    ValueErrors naming the keyword."""
    def no(what: str) -> None:
        raise ValueError(f"quantize: {what}")

    if nan not in ("keep", "reject"):
        no(f"nan must be 'keep' or 'reject', not {nan!r}")
    if family != "fp8" and (pow2 is not None or eps is not None or amax_nan is not None):
        no(f"pow2, eps and amax_nan belong to the FP8 schemes (tensor, delayed, tile128, block128), not {scheme}")
    if family != "mx" and (rule is not None or element_rounding is not None):
        no(f"rule and element_rounding belong to the MX schemes (mxfp8, mxfp6, mxfp4, mxint8), not {scheme}")
    if family != "nvfp4" and (two_d or sr or seed is not None):
        no(f"two_d, sr and seed belong to scheme nvfp4, not {scheme}")
    if seed is not None and not sr:
        no("seed seeds stochastic rounding: it needs sr=True")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << 64):
        no(f"seed must be an integer 0 to 2^64-1, not {seed!r}")
    delayed = scheme == "delayed"
    if not delayed and (margin is not None or history is not None or amax_algo is not None):
        no(f"margin, history and amax_algo belong to scheme delayed, not {scheme}")
    if family == "fp8" and scheme not in ("tile128", "block128") and recipe is not None:
        no(f"recipe belongs to schemes tile128, block128 and nvfp4 and to the MX schemes (mxfp8, mxfp6, mxfp4, "
           f"mxint8), not {scheme}")
    if recipe is not None and not isinstance(recipe, str):
        no(f"recipe is a name, not {recipe!r}")
    # The MX and NVFP4 names are the library's to read (the binding refuses
    # an unknown one with the choices, as the command does).
    if scheme == "nvfp4" and recipe not in (None, "te") and (two_d or sr):
        no(f"nvfp4 recipe {recipe} has no two_d or sr (te only)")
    if family == "fp8" and recipe is not None and recipe not in ("deepseek", "te"):
        no(f"recipe must be 'deepseek' or 'te', not {recipe!r}")
    if delayed and (pow2 is not None or eps is not None):
        no("TE delayed scaling has no power-of-two or epsilon option")
    if scheme == "tensor" and pow2 is False:
        no("pow2=False is the default of scheme tensor")
    for name, v, lo, hi in (("margin", margin, 0, 126), ("history", history, 1, 1 << 24)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi):
            no(f"{name} must be an integer {lo} to {hi}, not {v!r}")
    if amax_algo is not None and amax_algo not in ("max", "most_recent"):
        no(f"amax_algo must be 'max' or 'most_recent', not {amax_algo!r}")
    if amax_nan is not None and amax_nan not in ("ignore", "propagate"):
        no(f"amax_nan must be 'ignore' or 'propagate', not {amax_nan!r}")
    if element_rounding is not None and element_rounding not in ("rne", "rna"):
        no(f"element_rounding must be 'rne' or 'rna', not {element_rounding!r}")


# ---- loss scaling ----

# keyword -> (config key, scalers that take it)
_LS_OPTIONS = {
    "init_scale": ("init_scale", ("pytorch", "apex", "static", "deepspeed")),
    "growth_factor": ("growth_factor", ("pytorch",)),
    "backoff_factor": ("backoff_factor", ("pytorch",)),
    "growth_interval": ("interval", ("pytorch",)),
    "initial_scale_power": ("init_scale", ("deepspeed",)),
    "loss_scale_window": ("interval", ("deepspeed",)),
    "hysteresis": ("hysteresis", ("deepspeed",)),
    "consecutive_hysteresis": ("consecutive_hysteresis", ("deepspeed",)),
    "raise_at_min": ("raise_at_min", ("deepspeed",)),
    "min_loss_scale": ("min_scale", ("deepspeed", "apex")),
    "scale_window": ("interval", ("apex",)),
    "max_loss_scale": ("max_scale", ("apex",)),
    "skip": ("static_skips", ("static",)),
}


@dataclass(frozen=True)
class LossScaleRun:
    """A loss scaler replayed (`fpref lossscale`), one entry per iteration.

    scale, next_scale: the scale the iteration's loss was multiplied by and
    the one after the update (float64 values of the scale's format,
    scale_format: float32 for PyTorch, float64 otherwise), next_scale_bits
    their patterns; overflow, applied: the framework's verdict and whether
    the optimizer stepped; events: the CLI's words (grew, backoff,
    growth-refused, hysteresis, clamped, raised-at-min, nonfinite-applied,
    new-scale; "-" for none); counters: growth_tracker (PyTorch),
    unskipped (Apex), cur_hysteresis, cur_iter, last_overflow_iter
    (DeepSpeed), optimizer_steps, skipped_steps; grads: per iteration the
    gradient statistics (values, nonzero, zero_fp16, subnormal_fp16,
    zero_scaled, subnormal_scaled, nonfinite_scaled, zero_after_unscale)
    when gradients were given; summary: the CLI's summary."""
    scaler: str
    scale_format: str
    scale: np.ndarray
    next_scale: np.ndarray
    next_scale_bits: np.ndarray
    overflow: np.ndarray
    applied: np.ndarray
    events: List[str]
    counters: Dict[str, np.ndarray]
    grads: Optional[Dict[str, np.ndarray]]
    summary: Dict[str, Any] = field(default_factory=dict)


_EVENTS = ("grew", "backoff", "growth-refused", "hysteresis", "clamped", "raised-at-min")


def _grad_rows(g: Any) -> tuple:
    a = _as_array(g)
    if a.dtype.name not in ("float16", "float32", "float64") or a.ndim < 1:
        raise TypeError(f"lossscale: a gradient tensor is a float16/32/64 array with the iterations along its first "
                        f"axis, not {a.dtype} of shape {a.shape}")
    if a.size == 0:
        raise ValueError("lossscale: a gradient tensor is empty; it needs at least one gradient")
    bits = convert(a, "float32").reshape(a.shape[0], -1)  # float16 and float64 rounded to FP32, nearest even
    return a.shape[0], np.ascontiguousarray(bits, dtype=np.uint64), bits.shape[1]


def lossscale(scaler: str = "pytorch", *, overflow: Optional[Sequence[Any]] = None, grads: Any = None,
              new_scale: Optional[Mapping[int, float]] = None, profile: Optional[str] = None,
              **config: Any) -> LossScaleRun:
    """Replay a loss scaler over iterations, as `fpref lossscale --scaler
    SCALER` does (docs/loss-scaling.md): every scale bit-exact.

    scaler: pytorch (GradScaler), deepspeed (DynamicLossScaler), apex
    (amp's LossScaler) or static.  The iterations: overflow, one verdict
    per iteration (true: inf/NaN found), or grads, one or more float arrays
    (a list of them) with the iterations along the first axis, scaled into
    FP16 and checked by the framework's rule (PyTorch, Apex, static: any
    element inf/NaN; DeepSpeed: the FP32 sum).  new_scale={step: value}:
    PyTorch's update(new_scale) at those (1-based) iterations.  profile:
    the gradient path's environment ("cuda").  config, by scaler:
    init_scale (not DeepSpeed's, whose is initial_scale_power), pytorch:
    growth_factor, backoff_factor, growth_interval; deepspeed:
    initial_scale_power, loss_scale_window, hysteresis,
    consecutive_hysteresis, raise_at_min, min_loss_scale; apex:
    scale_window, min_loss_scale, max_loss_scale; static: skip.  Numbers
    are Python floats (their FP64 values, as the frameworks hold them).

    >>> run = lossscale("pytorch", overflow=[0, 1, 0], growth_interval=2)
    >>> run.scale.tolist(), run.events
    ([65536.0, 65536.0, 32768.0], ['-', 'backoff', '-'])
    """
    if not isinstance(scaler, str) or scaler not in ("pytorch", "deepspeed", "apex", "static"):
        raise ValueError(f"lossscale: unknown scaler {scaler!r} (pytorch, deepspeed, apex or static)")
    cfg: Dict[str, Any] = {}
    for key, value in config.items():
        if key not in _LS_OPTIONS:
            raise TypeError(f"lossscale: unknown option {key!r} (choices: {', '.join(_LS_OPTIONS)})")
        slot, takers = _LS_OPTIONS[key]
        if scaler not in takers:
            raise ValueError(f"lossscale: {key} does not apply to scaler {scaler}")
        if value is None:
            continue
        if key == "initial_scale_power":
            if not isinstance(value, int) or isinstance(value, bool) or not -1000 <= value <= 1000:
                raise ValueError(f"lossscale: initial_scale_power must be an integer -1000 to 1000, not {value!r}")
            cfg[slot] = 2.0 ** value
        elif key in ("growth_interval", "loss_scale_window", "scale_window", "hysteresis"):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 2 ** 31 - 1:
                raise ValueError(f"lossscale: {key} must be an integer 1 to 2147483647, not {value!r}")
            cfg[slot] = value
        elif key in ("consecutive_hysteresis", "raise_at_min", "skip"):
            cfg[slot] = bool(value)
        else:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
                raise TypeError(f"lossscale: {key} is a number, not {type(value).__name__}")
            cfg[slot] = float(value)
    if profile is not None:
        if not isinstance(profile, str):
            raise TypeError(f"lossscale: profile is a name such as 'cuda', not {type(profile).__name__}")
        cfg["profile"] = profile
    if (overflow is None) == (grads is None):
        raise ValueError("lossscale: give exactly one of overflow (one verdict per iteration) or grads")
    flags = None
    tensors: List[tuple] = []
    if overflow is not None:
        flags = np.ascontiguousarray(np.asarray(overflow).astype(bool).astype(np.uint8).reshape(-1))
        steps = flags.size
    else:
        rows = [_grad_rows(g) for g in (grads if isinstance(grads, (list, tuple)) else [grads])]
        if len(rows) > 16:
            raise ValueError("lossscale: at most 16 gradient tensors")
        steps = rows[0][0]
        if any(r[0] != steps for r in rows):
            raise ValueError(f"lossscale: the gradient tensors' first axes (iterations) differ: "
                             f"{[r[0] for r in rows]}")
        tensors = [(r[1], r[2]) for r in rows]
    manual: Dict[int, float] = {}
    for k, v in (new_scale or {}).items():
        if scaler != "pytorch":
            raise ValueError(f"lossscale: new_scale does not apply to scaler {scaler}")
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"lossscale: new_scale's steps are 1-based iteration numbers, not {k!r}")
        manual[k] = float(v)
    records, summary = _fpref.lossscale(scaler, cfg, flags, tensors, steps, manual)
    fmt = summary["scale_format"]
    view = (lambda b: np.array(b, dtype=np.uint32).view(np.float32).astype(np.float64)) if fmt == "float32" else \
        (lambda b: np.array(b, dtype=np.uint64).view(np.float64))
    cols = list(zip(*records)) if records else [()] * 24
    events = []
    for r in records:
        words = [w for w, on in zip(_EVENTS, r[4:10]) if on]
        if r[2] and r[3]:
            words.append("nonfinite-applied")
        if r[10]:
            words.append("new-scale")
        events.append(" ".join(words) or "-")
    counters: Dict[str, np.ndarray] = {}
    if scaler in ("pytorch", "apex"):
        counters["growth_tracker" if scaler == "pytorch" else "unskipped"] = np.array(cols[11], dtype=np.int64)
    elif scaler == "deepspeed":
        counters["cur_hysteresis"] = np.array(cols[11], dtype=np.int64)
        counters["cur_iter"] = np.array(cols[12], dtype=np.int64)
        counters["last_overflow_iter"] = np.array(cols[13], dtype=np.int64)
    counters["optimizer_steps"] = np.array(cols[14], dtype=np.int64)
    counters["skipped_steps"] = np.array(cols[15], dtype=np.int64)
    names = ("values", "nonzero", "zero_fp16", "subnormal_fp16", "zero_scaled", "subnormal_scaled",
             "nonfinite_scaled", "zero_after_unscale")
    gstats = None if flags is not None else {n: np.array(cols[16 + i], dtype=np.int64) for i, n in enumerate(names)}
    summary = dict(summary)
    summary["skip_rate"] = summary["skipped_steps"] / summary["iterations"] if summary["iterations"] else 0.0
    summary["final_scale"] = float(view([summary.pop("final_scale")])[0])
    return LossScaleRun(
        scaler=scaler, scale_format=fmt, scale=view(cols[0]), next_scale=view(cols[1]),
        next_scale_bits=np.array(cols[1], dtype=np.uint32 if fmt == "float32" else np.uint64),
        overflow=np.array(cols[2], dtype=bool), applied=np.array(cols[3], dtype=bool), events=events,
        counters=counters, grads=gstats, summary=summary)
