// Dependency manifests and build/run scripts: requirements (PEP 508 lines), pyproject.toml (toml++),
// environment.yml (yaml-cpp), setup.cfg, plus line patterns for Dockerfiles, shell/Slurm scripts and
// CUDA sources.
#pragma once

#include <regex>
#include <string_view>
#include <vector>

#include "analyzer/match.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::manifests {

struct Dependency {
    std::string name;   // distribution name as written
    std::size_t begin;  // byte range of the entry
    std::size_t end;
};

// Throws std::runtime_error with a line number when the manifest cannot be parsed.
std::vector<Dependency> dependencies(FileKind kind, const SourceText& source);

class ManifestEngine {
public:
    explicit ManifestEngine(const RuleCatalogue& catalogue);
    // Throws std::runtime_error when a manifest is malformed (the scan lists it as skipped).
    std::vector<Match> analyze(FileKind kind, const SourceText& source) const;
    // Whether any manifest rule reads files of this kind.
    bool reads(FileKind kind) const;

private:
    struct LineRule {
        const Rule* rule;
        std::regex pattern;
    };
    const RuleCatalogue& m_catalogue;
    std::vector<const Rule*> m_package_rules;
    std::vector<LineRule> m_line_rules;
};

}  // namespace mpsport::manifests
