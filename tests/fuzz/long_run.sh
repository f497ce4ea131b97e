#!/usr/bin/env bash
# The long fuzz run of the issue (every target at once, one libFuzzer process group per target), for a
# machine with many cores; the CMake target `fuzz` runs them one after the other instead.
#   [TARGETS="trace checkpoint"] tests/fuzz/long_run.sh BIN_DIR WORK_DIR SECONDS [WORKERS]
# BIN_DIR holds the fuzz_<name> binaries (build-san/tests/fuzz, as scripts/test.sh builds it). Each target runs WORKERS (default 2)
# libFuzzer jobs sharing one corpus, seeded from tests/fuzz/<name>/ and tests/fuzz/regressions/; new
# inputs go to WORK_DIR/corpus/<name>, crashes to WORK_DIR/crashes/, logs to WORK_DIR/logs/<name>/.
# The rule loader and trace targets read the bundled rules: set MPSPORT_RULES where the binaries were
# built in another tree. Prints per target: executions (all jobs), coverage (cov: edges, ft: features) and corpus size.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$(cd "${1:?BIN_DIR}" && pwd)
work=$(mkdir -p "${2:?WORK_DIR}" && cd "$2" && pwd)
seconds=${3:?SECONDS}
workers=${4:-2}
read -r -a targets <<<"${TARGETS:-requirements notebook trace rule_loader gitignore checkpoint}"
mkdir -p "$work/crashes"
for name in "${targets[@]}"; do
  mkdir -p "$work/corpus/$name" "$work/logs/$name"
  (cd "$work/logs/$name" && "$bin/fuzz_$name" -jobs="$workers" -workers="$workers" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/crashes/$name-" \
     "$work/corpus/$name" "$here/$name" "$here/regressions" > master.log 2>&1) &
done
wait
printf '%-13s %14s %8s %8s %8s %s\n' target executions cov ft corpus crashes
for name in "${targets[@]}"; do
  logs=("$work"/logs/"$name"/fuzz-*.log)
  execs=$(cat "${logs[@]}" | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
  # the highest coverage any job reached (the jobs share the corpus, each reports its own)
  cov=$(grep -h -o ' cov: [0-9]*' "${logs[@]}" | awk '{if ($2 > m) m = $2} END {print m + 0}')
  ft=$(grep -h -o ' ft: [0-9]*' "${logs[@]}" | awk '{if ($2 > m) m = $2} END {print m + 0}')
  crashes=$(ls "$work/crashes" | grep -c "^$name-" || true)
  printf '%-13s %14s %8s %8s %8s %s\n' "$name" "$execs" "${cov:-?}" "${ft:-?}" "$(ls "$work/corpus/$name" | wc -l)" "$crashes"
done
