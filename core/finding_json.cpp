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

}  // namespace mpsport
