#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prepare-fixtures.sh - decompress the fixtures into tests/work/img before
# the tests run (make check builds it with the test programs, so that zstd
# fills the cores the links leave idle); each test still calls
# prepare_fixtures (tests/cli/lib.sh), which finds them there.
. "$(dirname "$0")/cli/lib.sh"
prepare_fixtures
rm -rf "$SCRATCH"
