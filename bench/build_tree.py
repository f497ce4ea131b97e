#!/usr/bin/env python3
"""Builds the benchmark tree (never committed) from git snapshots of public ML repositories.

    bench/build_tree.py OUTDIR GITDIR...     each GITDIR a (bare) repository, e.g. a fetched snapshot

Exports HEAD's source files (everything except blobs the snapshot lacks, e.g. large binaries) into
OUTDIR/<name>, then prints the tree's size.
"""
import os
import subprocess
import sys


def export(git_dir, dest, rev="HEAD"):
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-l", "-z", rev],
                             check=True, capture_output=True).stdout.split(b"\0")
    wanted = []
    for entry in listing:
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha, size = meta.split()
        if kind == b"blob" and mode != b"120000" and size.isdigit() and int(size) < 4 << 20:
            wanted.append((sha, path.decode("utf-8", "replace")))
    proc = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    written = 0
    for sha, path in wanted:
        proc.stdin.write(sha + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        written += 1
    proc.stdin.close()
    proc.wait()
    return written


def main():
    out, git_dirs = sys.argv[1], sys.argv[2:]
    for g in git_dirs:
        name = os.path.basename(os.path.dirname(os.path.abspath(g))) if os.path.basename(g) == "repo" else os.path.basename(g)
        n = export(g, os.path.join(out, name))
        print(f"{name}: {n} files")
    py_lines = cu_lines = py_files = size = 0
    for root, _, files in os.walk(out):
        for f in files:
            p = os.path.join(root, f)
            size += os.path.getsize(p)
            if f.endswith(".py"):
                py_files += 1
                with open(p, "rb") as h:
                    py_lines += h.read().count(b"\n")
            elif f.endswith((".cu", ".cuh")):
                with open(p, "rb") as h:
                    cu_lines += h.read().count(b"\n")
    print(f"tree {out}: {size / 2**20:.0f} MiB, {py_files} Python files, {py_lines} lines of Python, {cu_lines} lines of CUDA")


if __name__ == "__main__":
    main()
