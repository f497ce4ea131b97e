#!/usr/bin/env bash
# The C++/CUDA engine's cost: seconds per 1,000 lines of CUDA (one core), and the scan of a tree
# with the Clang rules and without them (the same binary with a rules folder lacking the
# `engine: clang` rules), cold and warm, against ripgrep with scan_bench.sh's 20 trigger literals.
#   bench/clang_bench.sh TREE        any tree, e.g. an exported repository with .cu files
# Each timing is the median of 3 runs. Prints figures and ratios; asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
tree=${1:?usage: bench/clang_bench.sh TREE}
mpsport=${MPSPORT:-$repo/build/mpsport}
command -v rg >/dev/null || { echo "ripgrep (rg) is not installed (scripts/install.sh installs it)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
time3() {
  local runs=() t0 t1
  for _ in 1 2 3; do
    t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
    runs+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p
}
# CPU seconds (user + system, children included) of one run: robust when other work shares the machine.
cpu1() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f", $1 + $2}'; }

# The same rules without the Clang ones: "Clang off" for this binary.
cp -r "$repo/rules" "$work/rules-noclang"
grep -rl '^engine: clang' "$work/rules-noclang" --include='*.yaml' | xargs rm -f

mapfile -t cuda_files < <(find "$tree" \( -name '*.cu' -o -name '*.cuh' \) -not -path '*/.git/*' | sort)
cuda_lines=$(cat "${cuda_files[@]}" /dev/null | wc -l)
cpp_lines=$(find "$tree" \( -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) -not -path '*/.git/*' -print0 | xargs -0 cat /dev/null | wc -l)
echo "tree: $tree: ${#cuda_files[@]} CUDA files ($cuda_lines lines), $cpp_lines lines of C++; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

triggers=(cuda nccl float64 double complex128 cdouble DataParallel cpp_extension pin_memory cudnn autocast GradScaler
          flash_attn xformers apex triton cupy deepspeed from_numpy set_default_dtype)
rg_args=(--no-messages --no-require-git -l)
for t in "${triggers[@]}"; do rg_args+=(-e "$t"); done

scan=("$mpsport" scan --fail-on none --format json)
t_rg=$(time3 rg "${rg_args[@]}" "$tree")
t_cuda_1=$(time3 "${scan[@]}" --no-cache -j 1 "${cuda_files[@]}")
cpu_cuda=$(cpu1 "${scan[@]}" --no-cache "${cuda_files[@]}")
t_on=$(time3 "${scan[@]}" --no-cache "$tree")
cpu_on=$(cpu1 "${scan[@]}" --no-cache "$tree")
t_off=$(time3 "${scan[@]}" --no-cache --rules "$work/rules-noclang" "$tree")
"${scan[@]}" --cache-dir "$work/cache" "$tree" >/dev/null
t_warm=$(time3 "${scan[@]}" --cache-dir "$work/cache" "$tree")
summary=$("${scan[@]}" --no-cache "$tree" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
clang = [f for f in j["findings"] if f["rule"].startswith(("cuda-", "torch-cuda-cpp", "extension-op"))]
ops = sum(len(m["ops"]) for m in j.get("native_modules", []))
findings, skipped = len(j["findings"]), len(j["skipped"])
print(f"{findings} findings ({len(clang)} from C/C++/CUDA rules), {skipped} skipped, {ops} native ops")')

printf '\n%-44s %10s %10s\n' "" seconds "x ripgrep"
printf '%-44s %10.3f %10s\n' "ripgrep, 20 trigger literals" "$t_rg" "1.0"
printf '%-44s %10.3f   (%.3f s per 1,000 lines of CUDA on one core)\n' "CUDA files only, one job" "$t_cuda_1" \
  "$(echo "$t_cuda_1 / ($cuda_lines / 1000)" | bc -l)"
printf '%-44s %10s   (%.3f CPU s per 1,000 lines of CUDA)\n' "CUDA files only, all cores: CPU seconds" "$cpu_cuda" \
  "$(echo "$cpu_cuda / ($cuda_lines / 1000)" | bc -l)"
printf '%-44s %10.3f %10.1f\n' "mpsport scan, cold, Clang rules on" "$t_on" "$(echo "$t_on / $t_rg" | bc -l)"
printf '%-44s %10s\n' "  CPU seconds of that scan" "$cpu_on"
printf '%-44s %10.3f %10.1f\n' "mpsport scan, cold, Clang rules off" "$t_off" "$(echo "$t_off / $t_rg" | bc -l)"
printf '%-44s %10.3f %10.1f\n' "mpsport scan, warm cache, Clang rules on" "$t_warm" "$(echo "$t_warm / $t_rg" | bc -l)"
echo "$summary"
