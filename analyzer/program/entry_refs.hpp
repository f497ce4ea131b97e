// Entry points and project names named outside Python source: the commands of shell and Slurm
// scripts, Dockerfiles and Makefiles (`python train.py`, `python -m pkg.train`, `torchrun … train.py`),
// console scripts in pyproject.toml and setup.cfg, the modules a document's Python code imports (its
// documented API), and the project's own names.
#pragma once

#include <string_view>

#include "core/program_facts.hpp"
#include "core/walker.hpp"

namespace mpsport::program {

// Facts of a non-Python file; empty for kinds that name no entry point. Never throws: a manifest
// that does not parse is reported by the manifest engine, and simply names nothing here.
FileFacts entry_facts(FileKind kind, std::string_view text);

}  // namespace mpsport::program
