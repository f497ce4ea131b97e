// Rules that are one regex per line (engine: lines): Dockerfiles, shell / Slurm scripts, Makefiles,
// CUDA sources. What a line pattern cannot say belongs in another engine.
#pragma once

#include <mutex>
#include <regex>
#include <vector>

#include "analyzer/match.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::lines {

class LineEngine {
public:
    // Throws RuleError for an unknown file kind.
    explicit LineEngine(const RuleCatalogue& catalogue);
    // Compiles the patterns, once (std::regex: 4 ms, which a check of Python files alone never
    // needs); throws RuleError naming the rule file for one that does not compile. The scanner calls
    // it before it reads a file of a kind these rules read, so that a bad pattern fails the scan.
    void prepare() const;
    std::vector<Match> analyze(FileKind kind, const SourceText& source) const;
    bool reads(FileKind kind) const;

private:
    struct LineRule {
        const Rule* rule;
        std::vector<FileKind> kinds;
        std::regex pattern;
    };
    mutable std::vector<LineRule> m_rules;  // patterns compiled by prepare()
    mutable std::once_flag m_prepared;
};

}  // namespace mpsport::lines
