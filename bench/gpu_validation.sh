#!/usr/bin/env bash
# On a Linux machine with an NVIDIA GPU and a pip torch 2.x: build mpsport against that torch's
# LibTorch, then run doctor, the native TorchScript step on CUDA, the Python audit of a CUDA
# ResNet-50 step with --compare cpu, the overhead benchmark, and the runtime cases.
#   bench/gpu_validation.sh OUTDIR
# Needs cmake, ninja, a C++ compiler and the Debian-packaged libraries scripts/install.sh lists
# (yaml-cpp, fmt, tree-sitter, nlohmann-json, CLI11, toml++, libgit2, valijson, re2, and xxhash's
# header) or equivalents, and the grammar in build/_deps (scripts/install.sh).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: gpu_validation.sh OUTDIR}
mkdir -p "$out"
py=${PYTHON:-python3}
build=${BUILD:-/tmp/mpsport-gpu-build}
prefix=$("$py" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
cmake -S "$repo" -B "$build" -G Ninja -DMPSPORT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$prefix" \
  -DMPSPORT_GRAMMAR_DIR="$repo/build/_deps/tree-sitter-python-0.23.6" \
  -DMPSPORT_BASH_GRAMMAR_DIR="$repo/build/_deps/tree-sitter-bash-0.23.3" > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
grep "mpsport:" "$out/cmake.log"
cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
mpsport=$build/mpsport
echo "== doctor"; "$mpsport" doctor

echo "== native TorchScript step on cuda"
"$py" - "$out" <<'PY'
import sys, torch
m = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 10)))
m.save(sys.argv[1] + "/model.pt")
torch.save(torch.randn(128, 256), sys.argv[1] + "/inputs.pt")
torch.save(torch.randint(0, 10, (128,)), sys.argv[1] + "/targets.pt")
PY
"$mpsport" audit --torchscript "$out/model.pt" --example "$out/inputs.pt" --targets "$out/targets.pt" --loss cross_entropy \
  --device cuda --out "$out/native"
"$py" - "$out/native/trace.json" <<'PY'
import collections, json, sys
t = json.load(open(sys.argv[1]))
ops = t["ops"]
print("native trace: %d (op, phase, devices, dtypes) keys; by phase %s" % (len(ops), dict(collections.Counter(o["phase"] for o in ops))))
print("  e.g.", [(o["op"], o["phase"], o["devices"], o["dtypes"], o["count"]) for o in ops if "addmm" in o["op"] or "mm" == o["op"][6:]][:3])
PY

echo "== Python audit: ResNet-50 b64 train step on cuda, compared with the CPU"
"$mpsport" audit --quiet --steps 3 --compare cpu --out "$out/resnet50" -- "$py" "$repo/bench/train_step.py" --model resnet50 \
  --device cuda --batch 64 --steps 10
"$py" -c "import json,sys; t=json.load(open(sys.argv[1])); print('compare:', json.dumps(t.get('compare')))" "$out/resnet50/trace.json"

echo "== the same comparison with TF32 off (NVIDIA_TF32_OVERRIDE=0): are the differences TF32's?"
NVIDIA_TF32_OVERRIDE=0 "$mpsport" audit --quiet --steps 1 --compare cpu --out "$out/resnet50-fp32" -- "$py" "$repo/bench/train_step.py" \
  --model resnet50 --device cuda --batch 64 --steps 10 | grep -E "numerics|cudnn"

echo "== overhead"
MPSPORT=$mpsport "$repo/bench/audit_overhead.sh" "$py" cuda mlp resnet50
MPSPORT=$mpsport "$repo/bench/audit_overhead.sh" "$py" cpu mlp

echo "== runtime cases on this torch"
for s in clean_mlp unsupported_op float64_step crash_mid_step no_step; do
  "$mpsport" audit --quiet --out "$out/rc-$s" -- "$py" "$repo/corpus/runtime-cases/$s.py" > "$out/rc-$s.txt" 2>&1
  echo "$s: exit $? $(head -1 "$out/rc-$s.txt")"
done
grep -A8 "ops needing" "$out/rc-unsupported_op.txt"
