#!/bin/sh
# tests/check_ops_wide, the second of its 2 shards (FPREF_SHARD=1/2, tests/driver.h):
# make -j2 check runs the shards of a long suite side by side.
FPREF_SHARD=1/2
export FPREF_SHARD
exec "${FPREF_TESTS:?}/check_ops_wide"
