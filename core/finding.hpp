// The one Finding type every engine produces and every renderer reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport {

enum class Severity { info = 0, minor = 1, major = 2, blocker = 3 };
enum class VerdictImpact { none = 0, dual = 1, stay = 2 };

std::string_view to_string(Severity s);
std::string_view to_string(VerdictImpact v);
std::optional<Severity> parse_severity(std::string_view s);
std::optional<VerdictImpact> parse_verdict_impact(std::string_view s);

struct Location {
    std::string path;  // relative to the scanned root, '/' separated
    int line = 0;      // 1-based
    int col = 0;       // 1-based, in bytes
    int end_line = 0;
    int end_col = 0;
    int cell = 0;  // notebooks: 1-based code cell; line/end_line then count within that cell
};

struct Finding {
    std::string rule_id;
    Severity severity = Severity::info;
    std::string category;
    VerdictImpact impact = VerdictImpact::none;
    Location location;
    std::string snippet;  // the source line(s) of the match, trimmed
    std::string matched;  // the matched text, used for the fingerprint
    std::string message;
    std::string fix;
    std::string source = "static";  // static | runtime
    std::string fingerprint;
    std::string note;  // why severity was lowered (guarded, optional import, ...), empty if not
};

// rule + path + whitespace-normalised matched text + ordinal among equal keys: stable across line moves.
void assign_fingerprints(std::vector<Finding>& findings);

// Orders findings by path, line, column, rule: the order every report prints.
void sort_findings(std::vector<Finding>& findings);

}  // namespace mpsport
