#!/usr/bin/env bash
# Installs everything mpsport needs on a Debian 12 machine (run as root), fetches the
# tree-sitter grammars (Python, and Bash for shell and Slurm scripts) into the build folder, and
# checks their ABI.
# Idempotent: when every package and the grammar are already there it does no network work.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${MPSPORT_BUILD_DIR:-$repo_root/build}
# name@version of each grammar; CMakeLists.txt names the same versions.
grammars=(tree-sitter-python@0.23.6 tree-sitter-bash@0.23.3)

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libtorch-dev python3-torch
  libclang-14-dev libclang-cpp14-dev llvm-14-dev clang-14
  libtree-sitter-dev nlohmann-json3-dev libgtest-dev
  libtomlplusplus-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  python3-yaml python3-jsonschema python3-numpy python3-skorch
  libgit2-dev libvalijson-dev libxxhash-dev libre2-dev
  ripgrep flake8 time
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# The image ships Node.js with npm (the npm package would conflict with it); install npm only if absent.
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: missing Debian packages: ${missing[*]}" >&2
    echo "install.sh: run this script as root (or install them with apt-get) and try again." >&2
    exit 2
  fi
  echo "install.sh: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=()
for grammar in "${grammars[@]}"; do
  name=${grammar%@*}
  version=${grammar#*@}
  grammar_dir=$build_dir/_deps/$name-$version
  if [ ! -f "$grammar_dir/src/parser.c" ]; then
    echo "install.sh: fetching $grammar with npm pack"
    (cd "$tmp" && npm pack --silent "$grammar" >/dev/null)
    mkdir -p "$grammar_dir"
    tar -xzf "$tmp/$name-$version.tgz" -C "$grammar_dir" --strip-components=1 package/src
  fi
  # The Debian tree-sitter runtime (0.20.7) loads grammar ABI 13 and 14 only.
  abi=$(sed -n 's/^#define LANGUAGE_VERSION \([0-9]*\)$/\1/p' "$grammar_dir/src/parser.c")
  if [ "$abi" != 13 ] && [ "$abi" != 14 ]; then
    echo "install.sh: $grammar_dir/src/parser.c has grammar ABI '$abi'; tree-sitter 0.20 needs 13 or 14." >&2
    echo "install.sh: delete $grammar_dir and check the versions in this script." >&2
    exit 2
  fi
  summary+=("$name $version, ABI $abi")
done
echo "install.sh: dependencies ready ($(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g'))"
