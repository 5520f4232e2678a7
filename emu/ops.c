/* The emulator's arithmetic: integer significands, exact where the result
 * fits 128 bits, otherwise with the lost bits jammed into the last bit
 * (an odd last bit keeps every later rounding right), then the core. */
#include "fpref_emu.h"
#include "round_core.h"

struct operand {
	enum fpref_class cls;
	bool negative, signaling;
	int32_t exp;
	uint64_t sig;
};

static int top_bit(fpref_u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)x);
}

static int unpack(const struct fpref_format *f, uint64_t bits, bool daz, struct operand *o)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	o->cls = u.cls == FPREF_CLASS_SUBNORMAL && daz ? FPREF_CLASS_ZERO : u.cls;
	o->negative = u.negative;
	o->signaling = u.signaling;
	o->exp = u.exponent;
	o->sig = o->cls == FPREF_CLASS_ZERO ? 0 : u.significand;
	return 0;
}

/* A significand moved up so that its leading bit is bit 125. */
struct wide {
	bool negative;
	int32_t exp;
	fpref_u128 sig;
};

static struct wide widen(bool negative, int32_t exp, fpref_u128 sig)
{
	int up = 125 - top_bit(sig);
	return (struct wide){ negative, exp - up, sig << up };
}

/* x + y for nonzero x, y with leading bits at 125: the smaller is shifted
 * right with its lost bits jammed into bit 0.  Both carry at least 19 zero
 * low bits (significands of at most 106 bits), so the larger is even where
 * the jam lands, which makes the sum's last bit odd exactly when bits were lost. */
static struct wide add_wide(struct wide x, struct wide y)
{
	if (y.exp > x.exp || (y.exp == x.exp && y.sig > x.sig)) {
		struct wide t = x;
		x = y;
		y = t;
	}
	int64_t d = (int64_t)x.exp - y.exp;
	fpref_u128 shifted = d >= 128 ? (y.sig != 0) : (y.sig >> d) | ((y.sig & ((((fpref_u128)1) << d) - 1)) != 0);
	struct wide r = { x.negative, x.exp, x.negative == y.negative ? x.sig + shifted : x.sig - shifted };
	return r;
}

static uint64_t pack_wide(const struct fpref_format *f, const struct fpref_env *env, uint64_t R, struct wide w,
			  unsigned *flags)
{
	if (w.sig == 0) /* exact cancellation: +0, or -0 toward -inf */
		return fpref_emu_pack_zero(f, env, env->rounding == FPREF_RDN, flags);
	return fpref_emu_round_pack(f, env, R, w.negative, w.exp, w.sig, false, flags);
}

static uint64_t add_op(const struct fpref_format *f, const struct fpref_env *env, uint64_t R,
		       const struct operand *a, struct operand b, unsigned *flags)
{
	if (a->cls == FPREF_CLASS_INF || b.cls == FPREF_CLASS_INF) {
		if (a->cls == FPREF_CLASS_INF && b.cls == FPREF_CLASS_INF && a->negative != b.negative)
			return fpref_emu_pack_nan(f, env, false, true, flags); /* inf - inf: invalid */
		return fpref_emu_pack_inf(f, env, a->cls == FPREF_CLASS_INF ? a->negative : b.negative, flags);
	}
	if (a->cls == FPREF_CLASS_ZERO && b.cls == FPREF_CLASS_ZERO)
		return fpref_emu_pack_zero(f, env, a->negative == b.negative ? a->negative : env->rounding == FPREF_RDN,
					   flags);
	if (a->cls == FPREF_CLASS_ZERO)
		return fpref_emu_round_pack(f, env, R, b.negative, b.exp, b.sig, false, flags);
	if (b.cls == FPREF_CLASS_ZERO)
		return fpref_emu_round_pack(f, env, R, a->negative, a->exp, a->sig, false, flags);
	return pack_wide(f, env, R, add_wide(widen(a->negative, a->exp, a->sig), widen(b.negative, b.exp, b.sig)),
			 flags);
}

static uint64_t mul_op(const struct fpref_format *f, const struct fpref_env *env, uint64_t R,
		       const struct operand *a, const struct operand *b, unsigned *flags)
{
	bool negative = a->negative != b->negative;
	bool a_inf = a->cls == FPREF_CLASS_INF, b_inf = b->cls == FPREF_CLASS_INF;
	if ((a_inf && b->cls == FPREF_CLASS_ZERO) || (b_inf && a->cls == FPREF_CLASS_ZERO))
		return fpref_emu_pack_nan(f, env, false, true, flags);
	if (a_inf || b_inf)
		return fpref_emu_pack_inf(f, env, negative, flags);
	if (a->cls == FPREF_CLASS_ZERO || b->cls == FPREF_CLASS_ZERO)
		return fpref_emu_pack_zero(f, env, negative, flags);
	return fpref_emu_round_pack(f, env, R, negative, a->exp + b->exp, (fpref_u128)a->sig * b->sig, false, flags);
}

/* Long division in two 64-bit steps: a quotient of at least 127 bits and
 * a remainder for the sticky bit. */
static uint64_t div_op(const struct fpref_format *f, const struct fpref_env *env, uint64_t R,
		       const struct operand *a, const struct operand *b, unsigned *flags)
{
	bool negative = a->negative != b->negative;
	bool a_inf = a->cls == FPREF_CLASS_INF, b_inf = b->cls == FPREF_CLASS_INF;
	bool a_zero = a->cls == FPREF_CLASS_ZERO, b_zero = b->cls == FPREF_CLASS_ZERO;
	if ((a_zero && b_zero) || (a_inf && b_inf))
		return fpref_emu_pack_nan(f, env, false, true, flags);
	if (a_inf)
		return fpref_emu_pack_inf(f, env, negative, flags);
	if (b_zero) {
		*flags |= FPREF_FLAG_INFINITE;
		return fpref_emu_pack_inf(f, env, negative, flags);
	}
	if (a_zero || b_inf)
		return fpref_emu_pack_zero(f, env, negative, flags);
	int sa = 62 - top_bit(a->sig), sb = 63 - top_bit(b->sig);
	uint64_t na = a->sig << sa, nb = b->sig << sb;
	fpref_u128 n1 = (fpref_u128)na << 64;
	fpref_u128 q1 = n1 / nb, r1 = n1 % nb;
	fpref_u128 n2 = r1 << 64;
	fpref_u128 q2 = n2 / nb, r2 = n2 % nb;
	fpref_u128 q = q1 << 64 | q2;
	int32_t exp = a->exp - b->exp - sa + sb - 128;
	return fpref_emu_round_pack(f, env, R, negative, exp, q, r2 != 0, flags);
}

/* Digit-by-digit square root: 119 root bits from the significand followed
 * by zeros, the remainder giving the sticky bit. */
static uint64_t sqrt_op(const struct fpref_format *f, const struct fpref_env *env, uint64_t R,
			const struct operand *a, unsigned *flags)
{
	if (a->cls == FPREF_CLASS_ZERO)
		return fpref_emu_pack_zero(f, env, a->negative, flags);
	if (a->negative)
		return fpref_emu_pack_nan(f, env, false, true, flags);
	if (a->cls == FPREF_CLASS_INF)
		return fpref_emu_pack_inf(f, env, false, flags);
	/* radicand = sig * 2^shift with exp - shift even and 238 bits in all */
	int32_t shift = 237 - top_bit(a->sig);
	if ((a->exp - shift) % 2 != 0)
		shift++;
	int bits = top_bit(a->sig) + 1 + shift;
	int pairs = (bits + 1) / 2;
	fpref_u128 root = 0, rem = 0;
	for (int i = pairs - 1; i >= 0; i--) {
		int lo = 2 * i - shift; /* bit of sig at the low end of this pair */
		unsigned pair = 0;
		if (lo + 1 >= 0 && lo + 1 < 64)
			pair |= (unsigned)((a->sig >> (lo + 1)) & 1) << 1;
		if (lo >= 0 && lo < 64)
			pair |= (unsigned)((a->sig >> lo) & 1);
		rem = rem << 2 | pair;
		fpref_u128 trial = root << 2 | 1;
		root <<= 1;
		if (rem >= trial) {
			rem -= trial;
			root |= 1;
		}
	}
	return fpref_emu_round_pack(f, env, R, false, (a->exp - shift) / 2, root, rem != 0, flags);
}

static uint64_t fma_op(const struct fpref_format *f, const struct fpref_env *env, uint64_t R,
		       const struct operand *v, unsigned *flags)
{
	const struct operand *a = &v[0], *b = &v[1], *c = &v[2];
	bool pn = a->negative != b->negative;
	bool p_inf = a->cls == FPREF_CLASS_INF || b->cls == FPREF_CLASS_INF;
	bool p_zero = a->cls == FPREF_CLASS_ZERO || b->cls == FPREF_CLASS_ZERO;
	if (p_inf && c->cls == FPREF_CLASS_INF && pn != c->negative)
		return fpref_emu_pack_nan(f, env, false, true, flags);
	if (p_inf)
		return fpref_emu_pack_inf(f, env, pn, flags);
	if (c->cls == FPREF_CLASS_INF)
		return fpref_emu_pack_inf(f, env, c->negative, flags);
	if (p_zero && c->cls == FPREF_CLASS_ZERO)
		return fpref_emu_pack_zero(f, env, pn == c->negative ? pn : env->rounding == FPREF_RDN, flags);
	if (p_zero)
		return fpref_emu_round_pack(f, env, R, c->negative, c->exp, c->sig, false, flags);
	struct wide p = widen(pn, a->exp + b->exp, (fpref_u128)a->sig * b->sig);
	if (c->cls == FPREF_CLASS_ZERO)
		return pack_wide(f, env, R, p, flags);
	return pack_wide(f, env, R, add_wide(p, widen(c->negative, c->exp, c->sig)), flags);
}

static int sign_of(const struct operand *o)
{
	return o->cls == FPREF_CLASS_ZERO ? 0 : o->negative ? -1 : 1;
}

/* Order of |a| and |b| for nonzero a, b: inf above every finite value. */
static int compare_magnitude(const struct operand *a, const struct operand *b)
{
	bool ia = a->cls == FPREF_CLASS_INF, ib = b->cls == FPREF_CLASS_INF;
	if (ia || ib)
		return ia - ib;
	int32_t la = a->exp + top_bit(a->sig), lb = b->exp + top_bit(b->sig);
	if (la != lb)
		return la < lb ? -1 : 1;
	uint64_t xa = a->sig << (63 - top_bit(a->sig)), xb = b->sig << (63 - top_bit(b->sig));
	return (xa > xb) - (xa < xb);
}

/* The sign of a - b for non-NaN a, b; zeros are equal. */
static int compare(const struct operand *a, const struct operand *b)
{
	int sa = sign_of(a), sb = sign_of(b);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	int m = compare_magnitude(a, b);
	return sa > 0 ? m : -m;
}

static uint64_t select_or_compare(enum fpref_op op, const struct fpref_format *f, const struct fpref_env *env,
				  const uint64_t *in, const struct operand *v, unsigned *flags)
{
	bool signaling = v[0].signaling || v[1].signaling;
	bool nan0 = v[0].cls == FPREF_CLASS_NAN, nan1 = v[1].cls == FPREF_CLASS_NAN;
	if (signaling || ((nan0 || nan1) && op != FPREF_OP_EQ && fpref_op_is_compare(op)))
		*flags |= FPREF_FLAG_INVALID;
	if (nan0 || nan1) {
		if (fpref_op_is_compare(op))
			return 0;
		unsigned ignored = 0;
		return fpref_emu_pack_nan(f, env, nan0 ? v[0].negative : v[1].negative, false, &ignored);
	}
	int c = compare(&v[0], &v[1]);
	switch (op) {
	case FPREF_OP_EQ:
		return c == 0;
	case FPREF_OP_LT:
		return c < 0;
	case FPREF_OP_LE:
		return c <= 0;
	default:
		break;
	}
	if (c == 0 && v[0].cls == FPREF_CLASS_ZERO && v[0].negative != v[1].negative)
		c = v[0].negative ? -1 : 1; /* -0 is the lesser zero */
	int pick = c == 0 ? 0 : (op == FPREF_OP_MIN) == (c < 0) ? 0 : 1;
	if (v[pick].cls == FPREF_CLASS_ZERO) {
		unsigned ignored = 0;
		struct fpref_env plain;
		fpref_env_default(&plain);
		return fpref_emu_pack_zero(f, &plain, v[pick].negative, &ignored);
	}
	return in[pick];
}

int fpref_emu_op(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, const struct fpref_env *env,
		 uint64_t sr_random, uint64_t *out, unsigned *flags)
{
	if (f->man_bits > FPREF_OP_MAX_MAN_BITS)
		return -1;
	int n = fpref_op_arity(op);
	struct operand v[3] = { { 0 }, { 0 }, { 0 } };
	for (int i = 0; i < n; i++)
		if (unpack(f, in[i], env->daz, &v[i]) != 0)
			return -1;
	if (op >= FPREF_OP_MIN) {
		*out = select_or_compare(op, f, env, in, v, flags);
		return 0;
	}
	bool invalid_product = op == FPREF_OP_FMA &&
			       ((v[0].cls == FPREF_CLASS_ZERO && v[1].cls == FPREF_CLASS_INF) ||
				(v[0].cls == FPREF_CLASS_INF && v[1].cls == FPREF_CLASS_ZERO));
	const struct operand *nan = NULL;
	for (int i = 0; i < n; i++) {
		if (v[i].signaling)
			*flags |= FPREF_FLAG_INVALID;
		if (v[i].cls == FPREF_CLASS_NAN && !nan)
			nan = &v[i];
	}
	if (invalid_product)
		*flags |= FPREF_FLAG_INVALID;
	if (nan || invalid_product) {
		/* fma(0, inf, NaN) is an invalid operation first
		 * (docs/rounding.md, "Arithmetic"): the positive NaN, whatever c's sign */
		unsigned ignored = 0;
		*out = fpref_emu_pack_nan(f, env, !invalid_product && nan && nan->negative, false, &ignored);
		if (f->specials == FPREF_SPECIALS_NONE)
			*flags |= FPREF_FLAG_INVALID;
		return 0;
	}
	switch (op) {
	case FPREF_OP_ADD:
		*out = add_op(f, env, sr_random, &v[0], v[1], flags);
		break;
	case FPREF_OP_SUB: {
		struct operand b = v[1];
		b.negative = !b.negative;
		*out = add_op(f, env, sr_random, &v[0], b, flags);
		break;
	}
	case FPREF_OP_MUL:
		*out = mul_op(f, env, sr_random, &v[0], &v[1], flags);
		break;
	case FPREF_OP_DIV:
		*out = div_op(f, env, sr_random, &v[0], &v[1], flags);
		break;
	case FPREF_OP_SQRT:
		*out = sqrt_op(f, env, sr_random, &v[0], flags);
		break;
	case FPREF_OP_FMA:
		*out = fma_op(f, env, sr_random, v, flags);
		break;
	default:
		break;
	}
	return 0;
}
