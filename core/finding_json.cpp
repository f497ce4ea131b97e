#include "core/finding_json.hpp"

namespace mpsport {

nlohmann::json finding_to_json(const Finding& f) {
    nlohmann::json loc = {{"path", f.location.path},
                          {"line", f.location.line},
                          {"col", f.location.col},
                          {"end_line", f.location.end_line},
                          {"end_col", f.location.end_col}};
    if (f.location.cell > 0) loc["cell"] = f.location.cell;
    nlohmann::json j = {{"rule", f.rule_id},
                        {"severity", to_string(f.severity)},
                        {"category", f.category},
                        {"verdict_impact", to_string(f.impact)},
                        {"location", loc},
                        {"snippet", f.snippet},
                        {"matched", f.matched},
                        {"message", f.message},
                        {"fix", f.fix},
                        {"source", f.source},
                        {"fingerprint", f.fingerprint}};
    if (!f.note.empty()) j["note"] = f.note;
    return j;
}

Finding finding_from_json(const nlohmann::json& j) {
    Finding f;
    f.rule_id = j.at("rule").get<std::string>();
    f.severity = parse_severity(j.at("severity").get<std::string>()).value_or(Severity::info);
    f.category = j.at("category").get<std::string>();
    f.impact = parse_verdict_impact(j.at("verdict_impact").get<std::string>()).value_or(VerdictImpact::none);
    const auto& loc = j.at("location");
    f.location.path = loc.at("path").get<std::string>();
    f.location.line = loc.at("line").get<int>();
    f.location.col = loc.at("col").get<int>();
    f.location.end_line = loc.at("end_line").get<int>();
    f.location.end_col = loc.at("end_col").get<int>();
    f.location.cell = loc.value("cell", 0);
    f.snippet = j.at("snippet").get<std::string>();
    f.matched = j.value("matched", "");
    f.message = j.at("message").get<std::string>();
    f.fix = j.at("fix").get<std::string>();
    f.source = j.value("source", "static");
    f.fingerprint = j.value("fingerprint", "");
    f.note = j.value("note", "");
    return f;
}

}  // namespace mpsport
