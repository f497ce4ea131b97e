#!/usr/bin/env python3
"""Checks that no label of bench/realworld.json has moved.

    bench/check_labels.py

1. Every entry (commit, label, reason, key files) is the one the commit that added it wrote: read from
   the git history of bench/realworld.json.
2. Every entry that bench/realworld.provenance.json hashes matches the hash of its label as it stood in
   the label file before mpsport first ran on it.
Prints what differs and exits 1; exits 0 when nothing moved. Needs the repository's git history (a
shallow clone cannot answer 1: it says so and checks 2 only).
"""
import hashlib
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
path = "bench/realworld.json"


def key(e):
    return hashlib.sha256(json.dumps([e["commit"], e["label"], e["reason"], e["key_files"]], ensure_ascii=False).encode()).hexdigest()


def git(*args):
    return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True, text=True).stdout


current = {e["repo"]: e for e in json.load(open(os.path.join(root, path)))["repos"]}
moved = []
try:
    commits = git("log", "--reverse", "--format=%H", "--", path).split()
    if git("rev-parse", "--is-shallow-repository").strip() == "true":
        raise RuntimeError("a shallow clone")
    first = {}
    for c in commits:
        for e in json.loads(git("show", f"{c}:{path}"))["repos"]:
            first.setdefault(e["repo"], (c[:7], key(e)))
    for repo, e in current.items():
        if repo in first and key(e) != first[repo][1]:
            moved.append(f"{repo}: differs from what {first[repo][0]} added")
except (subprocess.CalledProcessError, RuntimeError, FileNotFoundError) as why:
    print(f"check_labels: no git history to compare with ({why}); checking the recorded hashes only", file=sys.stderr)
provenance = json.load(open(os.path.join(root, "bench/realworld.provenance.json")))
hashed = 0
for h in provenance["holdouts"]:
    for repo, digest in h["label_sha256"].items():
        hashed += 1
        if repo not in current:
            moved.append(f"{repo}: labelled in {h['added_in']}'s holdout, missing from {path}")
        elif key(current[repo]) != digest:
            moved.append(f"{repo}: differs from its label file before mpsport first ran ({h['label_file_final_utc']})")
for m in moved:
    print("label moved:", m)
print(f"check_labels: {len(current)} entries, {hashed} with a pre-scan hash, {len(moved)} moved")
sys.exit(1 if moved else 0)
