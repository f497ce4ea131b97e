// Rules that are one regex per line (engine: lines): Dockerfiles, shell / Slurm scripts, Makefiles,
// CUDA sources. What a line pattern cannot say belongs in another engine.
#pragma once

#include <regex>
#include <vector>

#include "analyzer/match.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::lines {

class LineEngine {
public:
    // Throws RuleError for an unknown file kind or a pattern that does not compile.
    explicit LineEngine(const RuleCatalogue& catalogue);
    std::vector<Match> analyze(FileKind kind, const SourceText& source) const;
    bool reads(FileKind kind) const;

private:
    struct LineRule {
        const Rule* rule;
        std::vector<FileKind> kinds;
        std::regex pattern;
    };
    std::vector<LineRule> m_rules;
};

}  // namespace mpsport::lines
