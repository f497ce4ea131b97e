// The part of the C++/CUDA engine that calls Clang, built as a module (libmpsport_clang.so) that
// clang_engine.cpp loads when a file first needs parsing: linking Clang and LLVM into mpsport would
// cost every run, a warm scan included, ~0.1 s of relocations. clang_engine.cpp forks and calls
// run_translation_unit() in the child.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/cuda/clang_engine.hpp"

namespace mpsport::cuda {

struct TuInput {
    std::string path;  // as reported
    std::filesystem::path absolute;
    FileKind kind = FileKind::cuda;
    const std::string* text = nullptr;
    std::vector<std::string> flags;  // -I, -D, -std from CompileFlags
    const std::vector<std::string>* repo_headers = nullptr;  // CompileFlags::headers()
    // The precompiled prefix (build_prefix()) for this file's language; empty: -include the shim.
    std::string prefix_pch;
};

// Whether a file is parsed as CUDA: by its kind, or a header that holds kernels or launches.
inline bool parses_as_cuda(FileKind kind, const std::string& text) {
    return kind == FileKind::cuda || text.find("__global__") != std::string::npos || text.find("<<<") != std::string::npos;
}

// Writes the precompiled prefix for CUDA or for C++ to `output`: the standard library headers
// extension sources include, then the shim, with the bodies of their functions skipped. A file
// parsed with it reads no standard header again. Returns an empty string, or what went wrong.
std::string build_prefix(const std::string& output, bool cuda);

// Parses every rule's matcher text with Clang's dynamic matcher parser and looks up its check;
// throws RuleError naming the rule file and the position of the error.
std::shared_ptr<const ClangRules> compile_clang_rules(const std::vector<const Rule*>& rules);

// Parses one translation unit and runs the rules on it, in this process. Never throws for what the
// file holds: a fatal error comes back as skip_reason.
TuResult run_translation_unit(const ClangRules& rules, const TuInput& in);

std::string clang_version();

// The module's entry points, all the loader looks up.
struct ClangApi {
    std::shared_ptr<const ClangRules> (*compile)(const std::vector<const Rule*>& rules);
    TuResult (*run)(const ClangRules& rules, const TuInput& in);
    std::string (*version)();
    std::string (*prefix)(const std::string& output, bool cuda);
};

}  // namespace mpsport::cuda

extern "C" const mpsport::cuda::ClangApi* mpsport_clang_api();
