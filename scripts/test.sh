#!/usr/bin/env bash
# Command 2 of the README (and what .ci/run calls): install, build, run every test; then the whole
# suite again under AddressSanitizer + UndefinedBehaviorSanitizer with assertions on (LLVM's header
# assertions included), built by clang 14 in build-san/ (reusing build/'s tree-sitter grammar
# libraries), and a libFuzzer smoke of every fuzz target from that same tree, MPSPORT_FUZZ_SECONDS
# each (15). MPSPORT_SANITIZERS=0 leaves the sanitizer stage out (a quick local run); CI runs it.
# docs/hardening.md has what each stage costs on 2 cores.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${MPSPORT_BUILD_DIR:-$repo_root/build}
jobs=$(nproc 2>/dev/null || echo 2)
"$repo_root/scripts/install.sh"
"$repo_root/scripts/build.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"

if [ "${MPSPORT_SANITIZERS:-1}" != 0 ]; then
  # LibTorch and LLVM are not built with the sanitizers: the native auditor is left out, and
  # container-overflow checks (which need every library instrumented) are off. -O1 with line tables
  # for the code under test, -O0 for the tests themselves; no -DNDEBUG, so every assert runs.
  san_dir=$repo_root/build-san
  cmake -S "$repo_root" -B "$san_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DMPSPORT_FUZZ=ON -DMPSPORT_BUILD_TESTS=ON -DMPSPORT_TEST_COMPILE_OPTIONS=-O0 -DMPSPORT_WITH_TORCH=OFF \
    -DMPSPORT_WITH_CLANG=ON -DMPSPORT_PREBUILT_GRAMMAR="$build_dir/libtree_sitter_python.a" \
    -DMPSPORT_FUZZ_SECONDS="${MPSPORT_FUZZ_SECONDS:-15}" >/dev/null
  cmake --build "$san_dir" -j "$jobs"
  # Two tests run in the plain pass only: each repeats whole-corpus scans (with one and two workers; with
  # and without the precompiled prefix) that CorpusGolden already runs here under the sanitizers, and
  # together they took some 150 s of this pass.
  ASAN_OPTIONS=detect_container_overflow=0:detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$repo_root/tests/lsan.supp \
    ctest --test-dir "$san_dir" --output-on-failure -j "$jobs" --timeout 600 \
      -E '^(Jobs\.ReportsAreByteIdenticalForOneAndTwoJobs|ClangEngine\.ThePrecompiledPrefixChangesNoFindingOnTheCorpusOrTheFixtures)$'
  if [ "${MPSPORT_FUZZ_SECONDS:-15}" != 0 ]; then
    cmake --build "$san_dir" -j "$jobs" --target fuzz
  fi
fi
