#include "core/finding_json.hpp"

namespace mpsport {
namespace {

nlohmann::json location_to_json(const Location& l) {
    nlohmann::json loc = {{"path", l.path}, {"line", l.line}, {"col", l.col}, {"end_line", l.end_line}, {"end_col", l.end_col}};
    if (l.cell > 0) loc["cell"] = l.cell;
    return loc;
}

}  // namespace

nlohmann::json finding_to_json(const Finding& f) {
    nlohmann::json j = {{"rule", f.rule_id},
                        {"severity", to_string(f.severity)},
                        {"category", f.category},
                        {"verdict_impact", to_string(f.impact)},
                        {"reach", to_string(f.reach)},
                        {"location", location_to_json(f.location)},
                        {"snippet", f.snippet},
                        {"matched", f.matched},
                        {"message", f.message},
                        {"fix", f.fix},
                        {"source", f.source},
                        {"fingerprint", f.fingerprint}};
    if (f.severity != f.rule_severity) j["rule_severity"] = to_string(f.rule_severity);
    if (f.impact != f.rule_impact) j["rule_verdict_impact"] = to_string(f.rule_impact);
    if (f.guard != GuardKind::none) j["guard"] = {{"kind", to_string(f.guard)}, {"condition", f.guard_note}};
    if (!f.chain.empty()) j["chain"] = f.chain;
    if (!f.related.empty()) {
        nlohmann::json related = nlohmann::json::array();
        for (const auto& r : f.related) related.push_back({{"location", location_to_json(r.location)}, {"label", r.label}});
        j["related"] = std::move(related);
    }
    if (!f.note.empty()) j["note"] = f.note;
    if (!f.ops.empty()) j["ops"] = f.ops;
    if (!f.observed.empty()) j["observed"] = f.observed;
    if (f.approximate) j["approximate"] = true;
    return j;
}

}  // namespace mpsport
