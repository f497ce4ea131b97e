#include "reports/op_evidence.hpp"

#include <algorithm>

#include "core/mps_tables.hpp"

namespace mpsport {
namespace {

bool ends_with_path(const std::string& path, const std::string& tail) {
    if (path == tail) return true;
    return path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0 &&
           path[path.size() - tail.size() - 1] == '/';
}

// The audit writes frames relative to the command's folder; the scan, relative to the scanned one.
// Either may be below the other, so the shorter path must end the longer one.
// A backward op's first user frame is the `loss.backward()` line, not the call that recorded it: there
// the file must agree, and the line cannot.
bool same_place(const std::string& frame, const Location& at, bool backward) {
    const std::size_t colon = frame.rfind(':');
    if (colon == std::string::npos) return false;
    if (!backward && frame.substr(colon + 1) != std::to_string(at.line)) return false;
    const std::string file = frame.substr(0, colon);
    return ends_with_path(file, at.path) || ends_with_path(at.path, file);
}

std::string base_op(const std::string& op) { return op.substr(0, op.find('.')); }

}  // namespace

void join_op_evidence(std::vector<Finding>& findings, Evidence& evidence) {
    for (OpUse& use : evidence.ops) {
        if (use.first_frame.empty()) continue;
        for (Finding& f : findings) {
            if (f.ops.empty() || std::find(f.ops.begin(), f.ops.end(), base_op(use.op)) == f.ops.end()) continue;
            if (!same_place(use.first_frame, f.location, use.phase == "backward")) continue;
            f.source = "static+runtime";
            f.observed.push_back("audit: " + use.op + " x" + std::to_string(use.count) + " in " + use.phase + " on " + use.devices + " (" +
                                 use.dtypes + "), predicted " + use.mps_status + " on MPS");
            use.finding = f.fingerprint;
            break;
        }
    }
}

std::string upgrade_what_if(const std::vector<Finding>& findings, const std::string& target_torch) {
    const std::string& newest = bundled_torch_versions().back();
    if (target_torch.empty() || target_torch == newest) return {};
    // Counted where item 5 looks: on the training path. Tests and dead files would inflate both numbers.
    std::size_t fixed = 0, all = 0;
    for (const auto& f : findings) {
        if (f.reach != Reach::core && f.reach != Reach::optional) continue;
        fixed += f.rule_id == "mps-op-fallback-fixed-upstream";
        all += f.rule_id == "mps-op-fallback-fixed-upstream" || f.rule_id == "mps-op-fallback";
    }
    if (all == 0) return {};
    return "upgrading from PyTorch " + target_torch + " to " + newest + " removes " + std::to_string(fixed) + " of " + std::to_string(all) +
           " predicted fallbacks on the training path";
}

}  // namespace mpsport
