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
