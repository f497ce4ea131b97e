#include "reports/effort.hpp"

#include <algorithm>

namespace mpsport {

namespace {

// rule -> file -> sites, for the findings `wanted` selects
using Sites = std::map<std::string, std::map<std::string, int>>;

// `measured`: per file, the lines the rule's findings stand for (kernels, measured by Clang); a
// per-kloc rule counts those instead of the whole file's lines.
EffortRange rule_effort(const EffortModel& e, const std::map<std::string, int>& files, const std::map<std::string, std::size_t>& file_lines,
                        const std::map<std::string, std::size_t>& measured) {
    EffortRange r;
    for (const auto& [path, count] : files) {
        double units = count;
        if (e.per == "file") units = 1;
        if (e.per == "kloc") {
            auto it = file_lines.find(path);
            double lines = it == file_lines.end() ? 0.0 : static_cast<double>(it->second);
            if (auto m = measured.find(path); m != measured.end()) lines = static_cast<double>(m->second);
            units = std::max(0.1, lines / 1000.0);
        }
        r.low += e.setup_low + units * e.low;
        r.high += e.setup_high + units * e.high;
    }
    if (e.cap_high > 0) {
        r.high = std::min(r.high, e.cap_high);
        r.low = std::min(r.low, r.high);
    }
    return r;
}

}  // namespace

EffortSummary estimate_effort(const std::vector<Finding>& findings, const RuleCatalogue& catalogue,
                              const std::map<std::string, std::size_t>& file_lines) {
    Sites sites, tooling_sites;
    std::map<std::string, std::map<std::string, std::size_t>> measured;  // rule -> file -> kernel lines
    for (const auto& f : findings) {
        if (f.severity == Severity::info) continue;  // info findings are advice, not work
        ++sites[f.rule_id][f.location.path];
        if (f.reach == Reach::tooling) ++tooling_sites[f.rule_id][f.location.path];
        if (f.lines > 0) measured[f.rule_id][f.location.path] += static_cast<std::size_t>(f.lines);
    }
    EffortSummary s;
    for (const auto& [rule_id, files] : sites) {
        const Rule* rule = catalogue.find(rule_id);
        if (!rule) continue;
        const EffortRange r = rule_effort(rule->effort, files, file_lines, measured[rule_id]);
        s.by_rule[rule_id] = r;
        auto& cat = s.by_category[rule->category];
        cat.low += r.low;
        cat.high += r.high;
        s.total.low += r.low;
        s.total.high += r.high;
        if (auto t = tooling_sites.find(rule_id); t != tooling_sites.end()) {
            // the tooling share of this rule's (capped) hours
            const EffortRange full = rule_effort(rule->effort, files, file_lines, measured[rule_id]);
            const EffortRange part = rule_effort(rule->effort, t->second, file_lines, measured[rule_id]);
            s.tooling.low += std::min(part.low, full.low);
            s.tooling.high += std::min(part.high, full.high);
        }
    }
    return s;
}

}  // namespace mpsport
