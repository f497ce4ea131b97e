#include "reports/op_evidence.hpp"

#include <algorithm>
#include <cstdlib>

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

Location frame_location(const std::string& frame) {
    Location at;
    const std::size_t colon = frame.rfind(':');
    at.path = frame.substr(0, colon);
    if (colon != std::string::npos) at.line = std::atoi(frame.c_str() + colon + 1);
    return at;
}

// The static finding at the place of a runtime observation, or a new runtime finding there.
Finding& finding_at(std::vector<Finding>& findings, const std::string& frame, Finding fresh, std::vector<std::size_t>& added) {
    for (std::size_t i = 0; i < findings.size(); ++i) {
        Finding& f = findings[i];
        if (f.source == "runtime" || !same_place(frame, f.location, false)) continue;
        f.source = "static+runtime";
        return f;
    }
    fresh.location = frame_location(frame);
    for (const Finding& f : findings)  // the audit's frames are relative to the command's folder: use the scan's path
        if (ends_with_path(fresh.location.path, f.location.path) || ends_with_path(f.location.path, fresh.location.path)) {
            fresh.location.path = f.location.path;
            break;
        }
    fresh.source = "runtime";
    findings.push_back(std::move(fresh));
    added.push_back(findings.size() - 1);
    return findings.back();
}

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

namespace {
// A finding that only the audit saw (no rule file: the runtime is its source).
Finding runtime_finding(std::string rule, Severity severity, std::string category, std::string matched, std::string message,
                        std::string fix) {
    Finding f;
    f.rule_id = std::move(rule);
    f.severity = f.rule_severity = severity;
    f.category = std::move(category);
    f.matched = std::move(matched);
    f.message = std::move(message);
    f.fix = std::move(fix);
    return f;
}
}  // namespace

void join_remap_evidence(std::vector<Finding>& findings, Evidence& evidence) {
    if (evidence.remap_target.empty()) return;
    std::vector<std::size_t> added;
    std::vector<std::pair<Redirect*, std::size_t>> joined;  // indexes: push_back may move the findings
    for (Redirect& r : evidence.redirects) {
        if (r.first_frame.empty()) continue;
        Finding& f = finding_at(findings, r.first_frame,
                                runtime_finding("runtime-remap-redirect", Severity::info, "device", r.api,
                                                "CUDA API " + r.api + " ran on " + evidence.remap_target + " under the audit's remap",
                                                "Choose the device once (cuda, mps or cpu) and pass it, instead of naming CUDA"),
                                added);
        f.observed.push_back("audit --remap: " + r.api + " x" + std::to_string(r.count) + " became " + r.to);
        joined.push_back({&r, static_cast<std::size_t>(&f - findings.data())});
    }
    for (const RemapBlocked& b : evidence.blocked) {
        if (b.frame.empty()) continue;
        finding_at(findings, b.frame,
                   runtime_finding("runtime-remap-blocked", Severity::major, "extension", b.api,
                                   b.api + " cannot run on " + evidence.remap_target + " (" + b.kind + "): " + b.exception,
                                   "Give it a CPU/MPS path (a PyTorch fallback) or keep this part on CUDA"),
                   added).observed.push_back("audit --remap: not redirectable (" + b.kind + "): " + b.exception);
    }
    if (!added.empty()) {
        assign_fingerprints(findings);
        for (auto& [r, i] : joined) r->finding = findings[i].fingerprint;
        sort_findings(findings);
    } else {
        for (auto& [r, i] : joined) r->finding = findings[i].fingerprint;
    }
}

std::string upgrade_what_if(const std::vector<Finding>& findings, const std::string& target_torch) {
    const std::string& newest = bundled_torch_versions().back();
    if (target_torch.empty() || target_torch == newest) return {};
    // Counted where item 5 looks: on the training path. Tests and dead files would inflate both numbers.
    std::size_t fixed = 0, all = 0;
    for (const auto& f : findings) {
        if (f.reach != Reach::core && f.reach != Reach::optional) continue;
        // info: a fallback that the run may never hit (a backward op where no gradients flow, an input
        // rank the source does not say)
        if (f.severity == Severity::info) continue;
        fixed += f.rule_id == "mps-op-fallback-fixed-upstream";
        all += f.rule_id == "mps-op-fallback-fixed-upstream" || f.rule_id == "mps-op-fallback";
    }
    if (all == 0) return {};
    return "upgrading from PyTorch " + target_torch + " to " + newest + " removes " + std::to_string(fixed) + " of " + std::to_string(all) +
           " predicted fallbacks on the training path";
}

}  // namespace mpsport
