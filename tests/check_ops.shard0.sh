#!/bin/sh
# tests/check_ops, the first of its 3 shards (FPREF_SHARD=0/3, tests/driver.h):
# make -j2 check runs the shards of a long suite side by side.
FPREF_SHARD=0/3
export FPREF_SHARD
exec "${FPREF_TESTS:?}/check_ops"
