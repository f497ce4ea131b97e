// The compiled form of the `engine: clang` rules, and the interface of a C++ check (built only with
// Clang). A rule is a list of matchers wherever clang-query can say it; a check class only where it
// cannot, registered in checks.cpp.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/Dynamic/VariantValue.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/cuda/clang_engine.hpp"

namespace mpsport::cuda {

// What a check hands back for one translation unit.
struct CheckOutput {
    const clang::SourceManager* sm = nullptr;
    const clang::LangOptions* lang = nullptr;
    FileKind kind = FileKind::cuda;
    std::vector<Match> matches;
    TuFacts facts;
    // Adds a match on [begin, end] (token range), mapped to the user's file; false if not there.
    bool add(const Rule& rule, clang::SourceLocation begin, clang::SourceLocation end, std::map<std::string, std::string> captures);
};

// Macro locations map to where the user wrote them: the spelling when it is in the main file (a
// macro argument), otherwise the expansion (a macro from the shim or a header used in the file).
clang::SourceLocation user_location(clang::SourceLocation loc, const clang::SourceManager& sm);

// Written by the repository's authors: the main file or one of the repository's headers (also those
// found by path tail), not the shim, the standard library or another installed header.
bool is_user_code(clang::SourceLocation loc, const clang::SourceManager& sm);

class Check {
public:
    virtual ~Check() = default;
    // Every #include of the main file, as written, before the AST exists.
    virtual void on_include(llvm::StringRef /*written*/, clang::SourceLocation /*hash*/, clang::SourceLocation /*end*/,
                            CheckOutput& /*out*/) {}
    // The AST of the main file's top-level declarations.
    virtual void on_ast(clang::ASTContext& /*ctx*/, const std::vector<clang::Decl*>& /*scope*/, CheckOutput& /*out*/) {}
};

// A check is built once per scan for every rule that names it (one instance serves them all).
using CheckFactory = std::unique_ptr<Check> (*)(const std::vector<const Rule*>& rules);
const std::map<std::string, CheckFactory>& registered_checks();

struct MatcherRule {
    const Rule* rule = nullptr;
    std::vector<clang::ast_matchers::internal::DynTypedMatcher> matchers;
};

struct CheckRules {
    std::unique_ptr<Check> check;
    std::vector<const Rule*> rules;
};

struct ClangRules {
    std::vector<MatcherRule> matchers;
    std::vector<CheckRules> checks;
};

bool reads_kind(const Rule& rule, FileKind kind);

}  // namespace mpsport::cuda
