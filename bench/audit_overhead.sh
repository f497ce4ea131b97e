#!/usr/bin/env bash
# Auditor overhead: a traced step against the plain step, per model and device.
#   bench/audit_overhead.sh [PYTHON] [DEVICE] [MODELS...]
# The plain step time is the script's own median; the traced step time is the probe's median over
# traced steps 2..N (--steps 6). Prints one line per model with the ratio. AUDIT_ARGS adds options to every
# audit (e.g. AUDIT_ARGS="--remap cuda=cpu" for the trial port's cost on a script that asks for no CUDA);
# OBSERVERS picks observers (default: dispatch native profiler).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
python=${1:-/usr/bin/python3}
device=${2:-cpu}
shift $(( $# > 2 ? 2 : $# ))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mlp resnet18)
mpsport=${MPSPORT:-$repo/build/mpsport}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# traced/plain: what tracing a step costs; timed/plain: how close the step time the audit reports
# (one step after the traced ones, unobserved) is to the plain step.
printf '%-9s %-6s %-6s %-9s %12s %12s %12s %13s %12s\n' model device batch observer plain_step_s traced_step_s timed_step_s traced/plain timed/plain
for m in "${models[@]}"; do
  batch=64
  plain=$("$python" "$here/train_step.py" --model "$m" --device "$device" --batch "$batch" --steps 12 | tail -1)
  for observer in ${OBSERVERS:-dispatch native profiler}; do
    # shellcheck disable=SC2086 # AUDIT_ARGS is a list of options
    "$mpsport" audit --quiet --steps 6 --observer "$observer" ${AUDIT_ARGS:-} --out "$out/$m-$observer" -- "$python" "$here/train_step.py" \
        --model "$m" --device "$device" --batch "$batch" --steps 12 >/dev/null || true
    "$python" - "$plain" "$out/$m-$observer/trace.json" "$m" "$device" "$batch" "$observer" <<'PY'
import json, sys
plain = json.loads(sys.argv[1])["median_step_s"]
t = json.load(open(sys.argv[2]))["timing"]
nan = float("nan")
traced = t.get("observed_step_s", nan)
timed = t.get("unobserved_step_s", nan)
print("%-9s %-6s %-6s %-9s %12.5f %12.5f %12.5f %12.2fx %11.2fx" % (sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], plain,
                                                                     traced, timed, traced / plain, timed / plain))
PY
  done
done
