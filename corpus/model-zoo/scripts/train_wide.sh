#!/usr/bin/env bash
set -euo pipefail
python -m zoo.wide_vit
