// Guards in shell and Slurm scripts, read with tree-sitter-bash: the branches a Mac never takes.
//   if [ "$(uname)" = "Darwin" ]; then ...; else <not on a Mac>; fi
//   case "$(uname -s)" in Linux*) <not on a Mac>;; Darwin) ...;; esac
//   if command -v nvcc >/dev/null; then <needs the CUDA toolkit>; fi     (also `nvcc --version && ...`)
//   case $CU_VERSION in cu118) <a CUDA build>;; cpu) <the Mac's>;; esac
// The vocabulary (probes, OS and CPU words) is rules/program.yaml's `guards: shell_*`.
#pragma once

#include <string>
#include <vector>

#include "analyzer/match.hpp"
#include "core/rule.hpp"

namespace mpsport::lines {

struct GuardedRegion {
    std::size_t begin = 0, end = 0;  // byte offsets of the branch
    GuardKind guard = GuardKind::none;
    std::string note;  // the test, as written
};

// The branches of `text` (a shell script) that a Mac does not take, outermost first.
std::vector<GuardedRegion> shell_guarded_regions(const std::string& text, const GuardVocabulary& vocabulary);

// Gives each match inside such a branch its guard (the innermost region's), unless it has one.
void guard_shell_matches(const std::string& text, const GuardVocabulary& vocabulary, std::vector<Match>& matches);

}  // namespace mpsport::lines
