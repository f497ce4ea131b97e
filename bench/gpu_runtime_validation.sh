#!/usr/bin/env bash
# The runtime auditor's trial port and performance acceptance on a CUDA machine, with a built mpsport:
#   MPSPORT=path/to/mpsport bench/gpu_runtime_validation.sh OUTDIR
# 1. the same CUDA script audited as is and under --remap cuda=cpu: the op tables compared;
# 2. a ResNet-50 batch sweep; 3. torchrun with NCCL (as many ranks as GPUs); 4. the overhead with and
# without --remap; 5. Lightning, Accelerate and Hugging Face Trainer loops (where installed).
# 6. --compare cpu --time, a GPU leak and a Triton kernel under --remap.
# STAGES="1 2 3 5" runs some of them (default all), to fit a time limit per command.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: gpu_runtime_validation.sh OUTDIR}
mkdir -p "$out"
py=${PYTHON:-python3}
mpsport=${MPSPORT:-$repo/build/mpsport}
export MPSPORT_RULES=${MPSPORT_RULES:-$repo/rules} MPSPORT_PROBE_DIR=${MPSPORT_PROBE_DIR:-$repo/auditor/probe}
gpus=$("$py" -c 'import torch; print(torch.cuda.device_count())')
"$py" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'

stages=" ${STAGES:-1 2 3 4 5 6} "
stage() { [[ $stages == *" $1 "* ]]; }

stage 1 && {
echo "== 1. op tables: as is on cuda, and under --remap cuda=cpu"
for model in mlp resnet50; do
  "$mpsport" audit --quiet --steps 2 --out "$out/$model-cuda" -- "$py" "$repo/bench/train_step.py" --model "$model" --device cuda --batch 16 --steps 6 > /dev/null
  "$mpsport" audit --quiet --steps 2 --remap cuda=cpu --out "$out/$model-remap" -- "$py" "$repo/bench/train_step.py" --model "$model" --device cuda --batch 16 --steps 6 > /dev/null
  "$py" - "$out/$model-cuda/trace.json" "$out/$model-remap/trace.json" "$model" <<'PY'
import json, sys
def table(path):
    t = json.load(open(path))
    rows = {}
    for o in t["ops"]:
        key = (o["op"], o["phase"], tuple(o["dtypes"]))
        rows[key] = rows.get(key, 0) + o["count"]
    return t, rows
(a, ta), (b, tb) = table(sys.argv[1]), table(sys.argv[2])
print("%s: cuda run %s on %s, %d keys; remapped run %s on %s, %d keys" % (sys.argv[3], a["status"], a["roles"]["params"]["devices"], len(ta),
      b["status"], b["roles"]["params"]["devices"], len(tb)))
print("  redirects:", [(r["api"], r["count"]) for r in b.get("remap", {}).get("redirects", [])])
same = [k for k in ta if tb.get(k) == ta[k]]
print("  identical (op, phase, dtypes, count): %d of %d" % (len(same), len(set(ta) | set(tb))))
for k in sorted(set(ta) | set(tb)):
    if ta.get(k) != tb.get(k):
        print("  differs: %-45s %-9s %-22s cuda x%s  remapped x%s" % (k[0], k[1], ",".join(k[2]), ta.get(k, 0), tb.get(k, 0)))
PY
done
"$mpsport" audit --quiet --steps 2 --remap cuda=cpu --out "$out/cuda-script-remap" -- "$py" "$repo/corpus/runtime-cases/cuda_script.py" | sed -n '/Trial port/,/Fallbacks\|Memory/p'
"$mpsport" audit --quiet --steps 2 --out "$out/cuda-script-cuda" -- "$py" "$repo/corpus/runtime-cases/cuda_script.py" | head -4
}

stage 2 && {
echo "== 2. ResNet-50 batch sweep on cuda"
"$mpsport" audit --quiet --steps 2 --sweep 16,32,64,128 --out "$out/sweep" -- "$py" "$repo/bench/train_step.py" --model resnet50 --device cuda \
  --batch '{batch}' --steps 8 | sed -n '/Batch sweep/,/Record/p'
"$mpsport" report "$repo/bench" --trace "$out/sweep/trace.json" --format html -o "$out/sweep.html" 2>/dev/null
grep -c "<svg class=\"sweep\"" "$out/sweep.html"
}

stage 3 && {
echo "== 3. torchrun, NCCL, $gpus GPU(s)"
"$mpsport" audit --quiet --steps 2 --timeout 300 --out "$out/nccl" -- "$py" -m torch.distributed.run --standalone --nproc_per_node "$gpus" \
  "$repo/bench/ddp_step.py" --backend nccl | sed -n '/^Audit/p;/Distributed/,/Record/p'
ls "$out/nccl"
}

stage 4 && {
echo "== 4. overhead, with and without --remap"
OBSERVERS="dispatch native" MPSPORT=$mpsport "$repo/bench/audit_overhead.sh" "$py" cuda mlp resnet50
OBSERVERS=dispatch MPSPORT=$mpsport "$repo/bench/audit_overhead.sh" "$py" cpu mlp resnet18
OBSERVERS=dispatch AUDIT_ARGS="--remap cuda=cpu" MPSPORT=$mpsport "$repo/bench/audit_overhead.sh" "$py" cpu mlp resnet18
}

stage 5 && {
echo "== 5. framework loops"
for loop in lightning_loop accelerate_loop hf_trainer_loop; do
  "$mpsport" audit --quiet --steps 2 --timeout 240 --out "$out/$loop" -- "$py" "$repo/bench/loops/$loop.py" > "$out/$loop.txt" 2>&1
  echo "$loop: exit $? $(grep -m1 '^Audit' "$out/$loop.txt"); $(grep -m1 'updates recognised' "$out/$loop.txt" | sed 's/^ *//')"
done
}

stage 6 && {
echo "== 6. time against the CPU, a GPU leak, a Triton kernel under --remap"
"$mpsport" audit --quiet --steps 2 --compare cpu --time --out "$out/time" -- "$py" "$repo/bench/train_step.py" --model resnet50 --device cuda \
  --batch 64 --steps 8 | sed -n '/Step time against/,/^  [A-Z]/p'
"$mpsport" audit --quiet --steps 4 --out "$out/cuda-leak" -- "$py" "$repo/bench/loops/cuda_leak.py" | sed -n '/Memory watermark/,+2p'
"$mpsport" audit --quiet --steps 1 --remap cuda=cpu --out "$out/triton" -- "$py" "$repo/bench/remap/triton_add.py" | sed -n '/^Audit/p;/NOT REDIRECTABLE/p'
}
