#!/usr/bin/env bash
# Command 2 of the README (and what .ci/run calls): install, build, run every test.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${MPSPORT_BUILD_DIR:-$repo_root/build}
"$repo_root/scripts/install.sh"
"$repo_root/scripts/build.sh"
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
