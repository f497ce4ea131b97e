// The effort model: hours low/high per finding from its rule's data; sites of one rule in one file
// share a setup cost; per-kloc rules scale with the file's lines; each rule has a cap.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "core/rule_catalogue.hpp"

namespace mpsport {

struct EffortRange {
    double low = 0;
    double high = 0;
};

struct EffortSummary {
    EffortRange total;
    EffortRange tooling;  // the part of the total in tests, benchmarks, examples and docs
    std::map<std::string, EffortRange> by_category;
    std::map<std::string, EffortRange> by_rule;
};

EffortSummary estimate_effort(const std::vector<Finding>& findings, const RuleCatalogue& catalogue,
                              const std::map<std::string, std::size_t>& file_lines);

}  // namespace mpsport
