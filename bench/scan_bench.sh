#!/usr/bin/env bash
# Static-pass speed and memory: mpsport scan (cold; warm on an unchanged tree and with one file
# edited; pre-commit on 10 files) against ripgrep with an equivalent 20-literal trigger set and
# against flake8 -j2, on any tree.
#   bench/scan_bench.sh [TREE]          TREE defaults to bench/tree (see bench/build_tree.py)
#   SKIP_FLAKE8=1 bench/scan_bench.sh   to leave out the (slow) flake8 run
# Each timing is the median of 3 runs (flake8: 1). Prints figures and ratios; asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
tree=${1:-$here/tree}
mpsport=${MPSPORT:-$repo/build/mpsport}
[ -d "$tree" ] || { echo "no tree at $tree: build one with bench/build_tree.py" >&2; exit 2; }
command -v rg >/dev/null || { echo "ripgrep (rg) is not installed (scripts/install.sh installs it)" >&2; exit 2; }
cache=$(mktemp -d)
# The loaded rules are kept between runs (README: the rules cache): here in a folder of this run's
# own, filled by the first scan. The check is timed with it and without it.
MPSPORT_RULES_CACHE=$(mktemp -d)
export MPSPORT_RULES_CACHE
trap 'rm -rf "$cache" "$MPSPORT_RULES_CACHE"' EXIT

now() { date +%s.%N; }
# median of 3 wall-clock runs of "$@", in seconds
time3() {
  local runs=() t0 t1
  for _ in 1 2 3; do
    t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
    runs+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p
}
peak_rss_mb() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1/1024}'; }

triggers=(cuda nccl float64 double complex128 cdouble DataParallel cpp_extension pin_memory cudnn autocast GradScaler
          flash_attn xformers apex triton cupy deepspeed from_numpy set_default_dtype)
rg_args=(--no-messages --no-require-git -l)
for t in "${triggers[@]}"; do rg_args+=(-e "$t"); done

py_files=$(find "$tree" -name '*.py' | wc -l)
py_lines=$(find "$tree" -name '*.py' -print0 | xargs -0 cat | wc -l)
echo "tree: $tree ($(du -sh "$tree" | cut -f1), $py_files Python files, $py_lines lines of Python), $(nproc) cores"

t_rg=$(time3 rg "${rg_args[@]}" "$tree")
t_cold=$(time3 "$mpsport" scan --no-cache --fail-on none --format json "$tree")
# Warm: the first scan fills the cache and the memo, the second renders from the memo and keeps
# its report; the timed ones find every file unchanged (the steady state of a CI re-run).
"$mpsport" scan --cache-dir "$cache" --fail-on none --format json "$tree" >/dev/null
"$mpsport" scan --cache-dir "$cache" --fail-on none --format json "$tree" >/dev/null
t_warm=$(time3 "$mpsport" scan --cache-dir "$cache" --fail-on none --format json "$tree")
# Warm with one Python file edited each time: the memo misses, the per-file cache serves the rest.
edited=$(find "$tree" -name '*.py' | sort | sed -n 1p)  # sed, not head: no SIGPIPE under pipefail
cp "$edited" "$cache/edited.orig"
trap 'cp "$cache/edited.orig" "$edited"; rm -rf "$cache" "$MPSPORT_RULES_CACHE"' EXIT
edit_scan() { echo "# edit $RANDOM" >>"$edited"; "$mpsport" scan --cache-dir "$cache" --fail-on none --format json "$tree"; }
t_edit=$(time3 edit_scan)
cp "$cache/edited.orig" "$edited"
mapfile -t ten < <(find "$tree" -name '*.py' -size +2k | sort | head -10)
t_pre=$(time3 "$mpsport" check --no-cache --fail-on none "${ten[@]}")
t_pre_norules=$(MPSPORT_RULES_CACHE=off time3 "$mpsport" check --no-cache --fail-on none "${ten[@]}")
rss_cold=$(peak_rss_mb "$mpsport" scan --no-cache --fail-on none --format json "$tree")
rss_warm=$(peak_rss_mb "$mpsport" scan --cache-dir "$cache" --fail-on none --format json "$tree")
findings=$("$mpsport" scan --no-cache --fail-on none --format json "$tree" | /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(len(j["findings"]), j["files_scanned"], len(j["skipped"]))')

printf '\n%-34s %10s %10s\n' "" seconds "x ripgrep"
printf '%-34s %10.3f %10s\n' "ripgrep, 20 trigger literals" "$t_rg" "1.0"
printf '%-34s %10.3f %10.1f\n' "mpsport scan, cold (no cache)" "$t_cold" "$(echo "$t_cold / $t_rg" | bc -l)"
printf '%-34s %10.3f %10.1f\n' "mpsport scan, warm, unchanged" "$t_warm" "$(echo "$t_warm / $t_rg" | bc -l)"
printf '%-34s %10.3f %10.1f\n' "mpsport scan, warm, 1 file edited" "$t_edit" "$(echo "$t_edit / $t_rg" | bc -l)"
printf '%-34s %10.3f\n' "mpsport check, 10 files" "$t_pre"
printf '%-34s %10.3f\n' "  the same, rules cache off" "$t_pre_norules"
echo "peak RSS: cold ${rss_cold} MB, warm ${rss_warm} MB"
echo "findings, files scanned, skipped: $findings"
if [ -z "${SKIP_FLAKE8:-}" ] && command -v flake8 >/dev/null; then
  t0=$(now); flake8 -j2 --exit-zero -q "$tree" >/dev/null 2>&1 || true; t1=$(now)
  t_flake8=$(echo "$t1 - $t0" | bc -l)
  printf '%-34s %10.3f   (mpsport cold is %.0fx faster)\n' "flake8 -j2" "$t_flake8" "$(echo "$t_flake8 / $t_cold" | bc -l)"
fi
