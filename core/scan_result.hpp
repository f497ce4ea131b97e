// What a static scan produced: the input of every report.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/finding.hpp"
#include "core/program_facts.hpp"
#include "core/native_facts.hpp"
#include "core/walker.hpp"

namespace mpsport {

struct ScanResult {
    std::string root;  // as given on the command line
    std::string target_torch;  // the PyTorch version whose MPS op tables the op-support rules read
    std::size_t files_scanned = 0;
    std::size_t files_cached = 0;  // of which reused from the cache unchanged
    std::size_t lines_scanned = 0;
    std::vector<SkippedFile> skipped;
    std::vector<Finding> findings;
    std::size_t ignored_dirs = 0;
    double seconds = 0;
    std::vector<std::string> warnings;  // e.g. the cache could not be written
    std::map<std::string, std::size_t> file_lines;  // line counts of files with findings (effort per kloc)
    ProgramSummary program;
    // Compiled extensions found in C++/CUDA sources, with the device paths of each op (native_facts.hpp).
    std::vector<NativeModule> native_modules;
    // A full scan with a cache: the id of its inputs (every file's size and mtime, the rules, the
    // options, the build), under which a caller may keep what it made of this result; else 0.
    std::uint64_t inputs_id = 0;
    // The scan's inputs are those of `inputs_id`, and the caller said it holds what it needs
    // (ScanOptions::unchanged): nothing else is filled in.
    bool reused = false;
    // Wall seconds of each phase of the scan, in order (--timings prints them).
    std::vector<std::pair<std::string, double>> timings;
};

}  // namespace mpsport
