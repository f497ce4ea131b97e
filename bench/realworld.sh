#!/usr/bin/env bash
# The real-world verdict suite: exports each repository of bench/realworld.json at its labelled
# commit from a folder of git snapshots, runs `mpsport report` on it, and prints a confusion matrix
# of label against verdict. Never run in CI (it needs the snapshots); run on demand:
#
#   bench/realworld.sh SNAPSHOTS [OUT]
#
# SNAPSHOTS holds one git directory per repository, named owner+name (with the git directory
# itself or a `repo` folder inside it), as the search tool's `fetch` leaves them. OUT (default: a
# temporary folder) receives one JSON report per repository; each exported tree is removed once
# its report is written (some 2 GB for the whole list) unless REALWORLD_KEEP_TREES=1.
# REALWORLD_LABELS=FILE runs another list of the same form (a holdout set labelled before it is added).
# For the entries that bench/realworld.second_labels.json labels again, blind, the summary also says
# how often the two labels agree and which of them mpsport matches.
# A repository whose report crashes, fails or takes longer than REALWORLD_TIMEOUT seconds (600) counts
# as wrong and is named; the others still run.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
snapshots=${1:?usage: bench/realworld.sh SNAPSHOTS [OUT]}
out=${2:-$(mktemp -d)}
mpsport=${MPSPORT:-${MPSPORT_BUILD_DIR:-$repo_root/build}/mpsport}
mkdir -p "$out"
# No label moves to match the tool: the suite's own labels are checked against their history first.
[[ -n "${REALWORLD_LABELS:-}" ]] || python3 "$repo_root/bench/check_labels.py"
REALWORLD_BENCH_DIR="$repo_root/bench" python3 - "${REALWORLD_LABELS:-$repo_root/bench/realworld.json}" "$snapshots" "$out" "$mpsport" <<'PY'
import json, os, shutil, subprocess, sys, time
labels, snapshots, out, mpsport = sys.argv[1:5]
sys.path.insert(0, os.environ["REALWORLD_BENCH_DIR"])
from build_tree import export  # skips the blobs a snapshot lacks (large binaries)
verdicts = ["migrate", "dual-track", "stay-on-CUDA"]
matrix = {(a, b): 0 for a in verdicts for b in verdicts}
rows, missing, failed = [], [], []
timeout = int(os.environ.get("REALWORLD_TIMEOUT", "600"))  # seconds per repository
for entry in json.load(open(labels))["repos"]:
    name = entry["repo"].replace("/", "+")
    git_dir = next((d for d in (os.path.join(snapshots, name, "repo"), os.path.join(snapshots, name, "repo", ".git"), os.path.join(snapshots, name))
                    if os.path.isdir(d) and os.path.exists(os.path.join(d, "HEAD"))), None)
    if git_dir is None:
        missing.append(entry["repo"])
        continue
    tree = os.path.join(out, name)
    if not os.path.isdir(tree):
        try:
            export(git_dir, tree, entry["commit"])
        except subprocess.CalledProcessError:
            missing.append(entry["repo"] + " (commit not in snapshot)")
            continue
    report = os.path.join(out, name + ".json")
    start = time.time()
    # A crash or a hang is a wrong answer for that repository, not the end of the suite.
    try:
        # The export holds exactly the files git tracks at that commit, and in a checkout mpsport
        # applies no .gitignore pattern to a tracked file: nothing of the export is ignored.
        done = subprocess.run([mpsport, "report", "--no-cache", "--no-ignore", "--format", "json", "-o", report, tree],
                              stderr=subprocess.DEVNULL, timeout=timeout)
        got = json.load(open(report))["assessment"]["verdict"] if done.returncode == 0 else f"exit {done.returncode}"
    except subprocess.TimeoutExpired:
        got = f"hung > {timeout}s"
    seconds = time.time() - start
    if os.environ.get("REALWORLD_KEEP_TREES") != "1":
        shutil.rmtree(tree, ignore_errors=True)
    if got in verdicts:
        matrix[(entry["label"], got)] += 1
    else:
        failed.append(entry["repo"])
    rows.append((entry["repo"], entry["label"], got, seconds))
width = max(len(r[0]) for r in rows) if rows else 10
print(f"{'repository':<{width}}  {'label':<12}  {'mpsport':<12}  seconds")
for repo, label, got, seconds in rows:
    print(f"{repo:<{width}}  {label:<12}  {got:<12}  {seconds:6.2f}{'' if label == got else '   <-- differs'}")
print("\nconfusion matrix (rows: label, columns: mpsport)")
print(f"{'':<14}" + "".join(f"{v:>14}" for v in verdicts))
for a in verdicts:
    print(f"{a:<14}" + "".join(f"{matrix[(a, b)]:>14}" for b in verdicts))
right = sum(matrix[(v, v)] for v in verdicts)
if failed:
    print("\nno report (crashed or hung; counted wrong): " + ", ".join(failed))
# Two decimals, truncated, never rounded up onto the target: 407 of 480 is 84.79%, not "85%".
print(f"\n{right} of {len(rows)} right ({int(10000.0 * right / max(1, len(rows))) / 100:.2f}%); "
      f"migrate called stay-on-CUDA: {matrix[('migrate', 'stay-on-CUDA')]}")
if missing:
    print("not scanned (no snapshot): " + ", ".join(missing))
# A second labeller's verdicts for some entries (realworld.second_labels.json): how far two labels
# agree bounds what a tool can score against one of them.
bench_dir = os.environ["REALWORLD_BENCH_DIR"]
second_path = os.path.join(bench_dir, "realworld.second_labels.json")
if os.path.realpath(labels) == os.path.realpath(os.path.join(bench_dir, "realworld.json")) and os.path.exists(second_path):
    got_of = {repo: got for repo, _, got, _ in rows}
    first = {e["repo"]: e for e in json.load(open(labels))["repos"]}
    both = [e for e in json.load(open(second_path))["repos"] if e["repo"] in got_of and first.get(e["repo"], {}).get("commit") == e["commit"]]
    if both:
        agree = sum(first[e["repo"]]["label"] == e["label"] for e in both)
        tool_first = sum(got_of[e["repo"]] == first[e["repo"]]["label"] for e in both)
        tool_second = sum(got_of[e["repo"]] == e["label"] for e in both)
        print(f"\nsecond labels ({len(both)} entries): the two labels agree on {agree}; "
              f"mpsport matches the first on {tool_first}, the second on {tool_second}")
PY
