// What an engine hands back before it becomes a Finding: a rule and a byte range in the file.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "core/rule.hpp"
#include "core/source_text.hpp"

namespace mpsport {

struct Match {
    const Rule* rule = nullptr;
    std::size_t begin = 0;  // byte offsets into the analysed text
    std::size_t end = 0;
    std::map<std::string, std::string> captures;  // for {name} placeholders in the message
    std::optional<Severity> severity;             // set when package data lowers the rule's own
    std::optional<VerdictImpact> impact;
    std::string note;  // why severity or impact differ from the rule's
    GuardKind guard = GuardKind::none;  // the guard around the match (weighed later, with reach)
    std::string guard_note;
    std::string subject;  // what the finding is about: a package, a variable, an extension
    // Other places of the same cause (byte ranges in the same text), with a label each.
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::string>> related;
    int lines = 0;     // lines of code the match stands for (a kernel's body), see Finding::lines
    std::vector<std::string> ops;  // aten ops the matched call reaches (op-support rules)
    std::optional<CallOrigin> origin;  // float64-dtype: see Finding::origin
};

// Turns matches into findings: message placeholders, snippet, location, suppressions.
// `cell_lines` (notebooks) maps each line of the analysed text to (cell, line in cell).
void append_findings(const std::vector<Match>& matches, const SourceText& source, const std::string& path,
                     const Suppressions& suppressions, std::vector<Finding>& out,
                     const std::vector<std::pair<int, int>>* cell_lines = nullptr);

std::string expand_message(const std::string& templ, const std::map<std::string, std::string>& captures);

}  // namespace mpsport

namespace mpsport {
// A match on a package from rules/packages/: message captures and the package's own verdict impact
// (a package needed only for scale or speed makes the rule's blocker a major, dual-track item).
void describe_package(Match& m, const PackageInfo& pkg);
}  // namespace mpsport
