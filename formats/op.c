/* Operation names and shapes. */
#include <string.h>

#include "fpref_formats_op.h"

static const struct {
	const char *name;
	int arity;
} ops[FPREF_OP_COUNT] = {
	{ "add", 2 }, { "sub", 2 }, { "mul", 2 }, { "div", 2 }, { "sqrt", 1 }, { "fma", 3 },
	{ "min", 2 }, { "max", 2 }, { "eq", 2 }, { "lt", 2 }, { "le", 2 },
};

const char *fpref_op_name(enum fpref_op op)
{
	return ops[op].name;
}

int fpref_op_parse(const char *name, enum fpref_op *op)
{
	for (int i = 0; i < FPREF_OP_COUNT; i++)
		if (strcmp(name, ops[i].name) == 0) {
			*op = (enum fpref_op)i;
			return 0;
		}
	return -1;
}

int fpref_op_arity(enum fpref_op op)
{
	return ops[op].arity;
}

bool fpref_op_is_compare(enum fpref_op op)
{
	return op == FPREF_OP_EQ || op == FPREF_OP_LT || op == FPREF_OP_LE;
}

const char *fpref_op_choices(void)
{
	return "add, sub, mul, div, sqrt, fma, min, max, eq, lt, le";
}
