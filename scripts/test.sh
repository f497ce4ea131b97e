#!/usr/bin/env bash
# Command 2 of the README (and what .ci/run calls): install, build, run every test; then a libFuzzer
# smoke of every fuzz target, built with ASan + UBSan by clang 14 (build-fuzz/, reusing build/'s
# tree-sitter grammar library): MPSPORT_FUZZ_SECONDS each (15; 0 leaves it out). The whole suite
# again under ASan + UBSan (build-asan/) is on demand, MPSPORT_SANITIZERS=1: its build and run do not
# fit beside the rest in CI's 30 minutes on 2 cores (docs/hardening.md has the figures).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${MPSPORT_BUILD_DIR:-$repo_root/build}
jobs=$(nproc 2>/dev/null || echo 2)
"$repo_root/scripts/install.sh"
"$repo_root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"

grammar_lib=$build_dir/libtree_sitter_python.a
if [ "${MPSPORT_SANITIZERS:-0}" != 0 ]; then
  # LibTorch and LLVM are not built with the sanitizers: the native auditor is left out, and
  # container-overflow checks (which need every library instrumented) are off.
  asan_dir=$repo_root/build-asan
  MPSPORT_BUILD_DIR=$asan_dir "$repo_root/scripts/build.sh" -DMPSPORT_SANITIZE="address;undefined" \
    -DMPSPORT_PREBUILT_GRAMMAR="$grammar_lib" -DMPSPORT_WITH_TORCH=OFF
  ASAN_OPTIONS=detect_container_overflow=0:detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$repo_root/tests/lsan.supp \
    ctest --test-dir "$asan_dir" --output-on-failure -j "$jobs"
fi

fuzz_seconds=${MPSPORT_FUZZ_SECONDS:-15}
if [ "$fuzz_seconds" != 0 ]; then
  fuzz_dir=$repo_root/build-fuzz
  cmake -S "$repo_root" -B "$fuzz_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 -DMPSPORT_FUZZ=ON -DMPSPORT_BUILD_TESTS=OFF -DMPSPORT_WITH_TORCH=OFF \
    -DMPSPORT_WITH_CLANG=OFF -DMPSPORT_PREBUILT_GRAMMAR="$grammar_lib" -DMPSPORT_FUZZ_SECONDS="$fuzz_seconds" >/dev/null
  cmake --build "$fuzz_dir" -j "$jobs" --target fuzz
fi
