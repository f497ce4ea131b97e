#!/usr/bin/env python3
"""The hostile repository test (ctest `hostile_repository`): builds, at test time, a repository of
everything that has broken linters (binary and huge sources, bad UTF-8, a symlink loop, a FIFO, a
folder named like a source file, 100,000 tiny files, 200-deep nesting, malformed manifests and
notebooks, garbage checkpoints, a template bomb for Clang), scans it, and checks that the scan
finishes, names every bad input with its reason, stays under 300 MB of peak RSS and exits with the
documented code (1: findings at or above --fail-on major). Prints the figures.

Usage: hostile_repo.py MPSPORT_BINARY [--tiny N]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

RSS_LIMIT_KB = 300 * 1024


def write(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def build(root, tiny):
    write(root, "train.py", "import torch\n\nif __name__ == '__main__':\n    model = torch.nn.Linear(2, 2).cuda()\n")
    write(root, "binary.py", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64)
    with open(os.path.join(root, "huge.py"), "wb") as f:  # 50 MB of real Python
        line = b"x_%08d = torch.zeros(3).cuda()  # padding padding padding\n"
        chunk = b"".join(line % i for i in range(100000))
        while f.tell() < 50 * 1024 * 1024:
            f.write(chunk)
    write(root, "latin1.py", b"# r\xe9sum\xe9 of the model\nimport torch\nnet.cuda()\n")
    os.symlink("loop_b.py", os.path.join(root, "loop_a.py"))
    os.symlink("loop_a.py", os.path.join(root, "loop_b.py"))
    os.mkfifo(os.path.join(root, "pipe.py"))
    write(root, "folder.py/inner.py", "import torch\n\n\ndef f(x):\n    return x.double()\n")
    write(root, "pyproject.toml", "[project\nname = 'broken'\n")
    write(root, "environment.yml", "name: env\ndependencies: [pytorch, {unclosed\n")
    write(root, "notebook.ipynb", '{"cells": [{"cell_type": "code", "source": ["import torch\\n"')
    write(root, "requirements.txt", "torch==1.13.1+cu117 --hash=\n-r missing-file.txt\n[[[garbage\n\x01\x02\n")
    write(root, "garbage.pt", os.urandom(4096))
    with zipfile.ZipFile(os.path.join(root, "full.pt"), "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02}q\x00." * 1000)
        z.writestr("archive/data/0", os.urandom(65536))
    with open(os.path.join(root, "full.pt"), "rb") as f:
        data = f.read()
    write(root, "truncated.pt", data[: len(data) // 2])
    os.remove(os.path.join(root, "full.pt"))
    write(root, "kernels/bomb.cu", (
        "template <int N> struct Fib { static constexpr long v = Fib<N - 1>::v + Fib<N - 2>::v; };\n"
        "template <> struct Fib<1> { static constexpr long v = 1; };\n"
        "template <> struct Fib<0> { static constexpr long v = 0; };\n"
        "template <int N> struct Deep { using T = typename Deep<N - 1>::T; };\n"
        "template <> struct Deep<0> { using T = int; };\n"
        "__global__ void bomb(long* out) { out[0] = Fib<90>::v + sizeof(Deep<5000>::T); }\n"))
    deep = root
    for i in range(200):
        deep = os.path.join(deep, "d%d" % (i % 10))
    write(deep, "leaf.py", "import torch\ny = torch.zeros(1).cuda()\n")
    many = os.path.join(root, "many")
    for d in range(tiny // 1000):
        sub = os.path.join(many, "p%03d" % d)
        os.makedirs(sub)
        for i in range(1000):
            with open(os.path.join(sub, "m%04d.py" % i), "w") as f:
                f.write("x = %d\n" % i)


def main():
    binary = os.path.abspath(sys.argv[1])
    tiny = int(sys.argv[sys.argv.index("--tiny") + 1]) if "--tiny" in sys.argv else 100000
    root = tempfile.mkdtemp(prefix="mpsport-hostile-")
    try:
        t0 = time.time()
        build(root, tiny)
        made = time.time() - t0
        out = os.path.join(root, "..", os.path.basename(root) + ".json")
        t0 = time.time()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M %e", binary, "scan", "--format", "json", "--no-cache", "-o", out, root],
                              stderr=subprocess.PIPE, text=True, timeout=600)
        wall = time.time() - t0
        rss_kb, seconds = proc.stderr.strip().splitlines()[-1].split()
        rss_kb = int(rss_kb)
        report = json.load(open(out))
        os.remove(out)
        skipped = {s["path"]: s["reason"] for s in report["skipped"]}
        problems = []

        def expect(cond, what):
            if not cond:
                problems.append(what)

        expect(proc.returncode == 1, "exit code %d, documented: 1 (findings at or above major)" % proc.returncode)
        expect("binary" in skipped.get("binary.py", ""), "binary.py: " + skipped.get("binary.py", "not named"))
        expect("oversized" in skipped.get("huge.py", ""), "huge.py: " + skipped.get("huge.py", "not named"))
        expect("symbolic link loop" in skipped.get("loop_a.py", ""), "loop_a.py: " + skipped.get("loop_a.py", "not named"))
        expect("FIFO" in skipped.get("pipe.py", ""), "pipe.py: " + skipped.get("pipe.py", "not named"))
        for bad in ("pyproject.toml", "environment.yml", "notebook.ipynb", "garbage.pt", "truncated.pt"):
            expect(bad in skipped, bad + ": not named in skipped")
        rules_at = {(f["location"]["path"], f["rule"]) for f in report["findings"]}
        expect(("latin1.py", "cuda-method-call") in rules_at, "latin1.py: its .cuda() is lost")
        expect(any(f["location"]["path"] == "latin1.py" and f.get("approximate") for f in report["findings"]),
               "latin1.py: findings not marked approximate")
        expect(("folder.py/inner.py", "float64-dtype") in rules_at, "folder.py/inner.py: not scanned")
        expect(any(p.endswith("/leaf.py") and p.count("/") == 200 for p, _ in rules_at), "the 200-deep leaf.py: not scanned")
        expect("kernels/bomb.cu" in skipped or any(p == "kernels/bomb.cu" for p, _ in rules_at), "kernels/bomb.cu: neither scanned nor named")
        expect(report["files_scanned"] >= tiny, "files_scanned %d < %d tiny files" % (report["files_scanned"], tiny))
        # --sanitized: an ASan/UBSan build, whose shadow memory and quarantine are not the tool's RSS
        if "--sanitized" not in sys.argv:
            expect(rss_kb < RSS_LIMIT_KB, "peak RSS %d MB >= 300 MB" % (rss_kb // 1024))
        print("hostile repository: %d files scanned, %d skipped, %d findings; made in %.1f s, scanned in %s s (wall %.1f s), "
              "peak RSS %.1f MB, exit code %d" % (report["files_scanned"], len(skipped), len(report["findings"]), made, seconds, wall,
                                                 rss_kb / 1024, proc.returncode))
        for path in sorted(skipped):
            print("  skipped %-28s %s" % (path, skipped[path]))
        for p in problems:
            print("FAIL: " + p)
        return 1 if problems else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
