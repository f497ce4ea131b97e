#!/usr/bin/env bash
# Command 1 of the README: install, build, and report on the bundled corpus (or on PATH if given).
# Exit 0 when every report was written, whatever the verdicts; 2 when mpsport itself failed.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo_root/scripts/install.sh"
"$repo_root/scripts/build.sh"
mpsport=${MPSPORT_BUILD_DIR:-$repo_root/build}/mpsport

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in "$repo_root"/corpus/*/; do targets+=("${d%/}"); done
fi
for t in "${targets[@]}"; do
  printf '\n=== mpsport report %s ===\n' "${t#"$repo_root"/}"
  (cd "$(dirname "$t")" && "$mpsport" report --no-cache "$(basename "$t")")
done

# With no arguments, also show the runtime pass: audit one real train step of a corpus script
# and combine its trace with the scan of that repository.
if [ $# -eq 0 ]; then
  python=${PYTHON:-/usr/bin/python3}
  if "$python" -c 'import torch' 2>/dev/null; then
    out=${MPSPORT_BUILD_DIR:-$repo_root/build}/demo-audit
    printf '\n=== mpsport audit -- python corpus/runtime-cases/unsupported_op.py ===\n'
    (cd "$repo_root" && "$mpsport" audit --quiet --out "$out" -- "$python" corpus/runtime-cases/unsupported_op.py) || true
    printf '\n=== mpsport report corpus/runtime-cases --trace %s/trace.json ===\n' "${out#"$repo_root"/}"
    (cd "$repo_root" && "$mpsport" report --no-cache corpus/runtime-cases --trace "$out/trace.json" | sed -n '/MPS release checklist/,$p')
  else
    echo "(skipping the audit demo: $python has no torch)"
  fi
fi
