#include "reports/checklist.hpp"

#include <algorithm>

namespace mpsport {
namespace {

std::string cite(const Finding& f) { return f.rule_id + "@" + f.location.path + ":" + std::to_string(f.location.line); }

bool counts(const Finding& f) { return f.severity != Severity::info; }

// Findings of the given categories that are real work (not info).
std::vector<const Finding*> select(const std::vector<Finding>& findings, std::initializer_list<std::string_view> categories) {
    std::vector<const Finding*> out;
    for (const auto& f : findings)
        if (counts(f) && std::find(categories.begin(), categories.end(), f.category) != categories.end()) out.push_back(&f);
    return out;
}

void cite_all(ChecklistItem& item, const std::vector<const Finding*>& fs) {
    for (const Finding* f : fs) {
        if (item.evidence.size() == 20) {
            item.evidence.push_back("... and " + std::to_string(fs.size() - 20) + " more");
            break;
        }
        item.evidence.push_back(cite(*f));
    }
}

ChecklistItem runtime_only(int number, std::string title) {
    ChecklistItem item{number, std::move(title), ItemStatus::not_run, false, "not run: no audit trace (run `mpsport audit -- CMD`)", {}};
    return item;
}

}  // namespace

std::string_view to_string(ItemStatus s) {
    switch (s) {
        case ItemStatus::pass: return "pass";
        case ItemStatus::warn: return "warn";
        case ItemStatus::fail: return "fail";
        case ItemStatus::not_run: return "not-run";
    }
    return "not-run";
}

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::migrate: return "migrate";
        case Verdict::dual_track: return "dual-track";
        case Verdict::stay_on_cuda: return "stay-on-CUDA";
    }
    return "migrate";
}

Assessment assess(const std::vector<Finding>& findings, const Evidence* ev, const RuleCatalogue& catalogue,
                  const std::map<std::string, std::size_t>& file_lines) {
    Assessment a;
    a.static_only = ev == nullptr;
    a.effort = estimate_effort(findings, catalogue, file_lines);

    // 1-2: the environment gate.
    for (int n : {1, 2}) {
        ChecklistItem item = runtime_only(n, n == 1 ? "MPS built" : "MPS available");
        if (ev) {
            const bool ok = n == 1 ? ev->mps_built : ev->mps_available;
            item.predicted = ev->predicted;
            item.status = ok || ev->predicted ? ItemStatus::pass : ItemStatus::fail;
            item.detail = ev->predicted ? "predicted: this host has no MPS; an Apple Silicon Mac with PyTorch >= 2.0 has it"
                                        : (ok ? "yes, on this host" : "no, on this host");
            item.evidence.push_back("trace: torch " + ev->torch_version + " on " + ev->platform);
        }
        a.items.push_back(item);
    }

    // 3: device placement.
    {
        ChecklistItem item{3, "Params, inputs, targets, outputs on the expected device", ItemStatus::pass, false, "", {}};
        const auto device_findings = select(findings, {"device"});
        cite_all(item, device_findings);
        if (!device_findings.empty()) {
            item.status = ItemStatus::warn;
            item.detail = std::to_string(device_findings.size()) + " place(s) hard-code CUDA: make the device a parameter";
        } else {
            item.detail = "no hard-coded CUDA device found statically";
        }
        if (ev) {
            std::string mixed;
            for (const auto& role : ev->roles)
                if (role.devices.size() > 1) mixed += (mixed.empty() ? "" : ", ") + role.role;
            if (!mixed.empty()) {
                item.status = ItemStatus::fail;
                item.detail = "tensors of " + mixed + " are on more than one device";
            } else if (!ev->roles.empty()) {
                item.detail += "; at runtime every role was on " + ev->device;
            }
            item.evidence.push_back("trace: device placement per role");
        }
        a.items.push_back(item);
    }

    // 4: one full step.
    {
        ChecklistItem item = runtime_only(4, "At least one forward + backward + optimizer update");
        if (ev) {
            const bool ok = ev->forward && ev->backward && ev->optimizer_steps > 0;
            item.status = ok ? ItemStatus::pass : ItemStatus::fail;
            item.detail = ok ? std::to_string(ev->optimizer_steps) + " optimizer step(s) completed"
                             : "incomplete: " + (ev->incomplete_reason.empty() ? std::string("no optimizer step") : ev->incomplete_reason);
            item.evidence.push_back("trace: step");
        }
        a.items.push_back(item);
    }

    // 5: CPU fallbacks.
    {
        ChecklistItem item = runtime_only(5, "No unexplained persistent CPU fallback");
        if (ev) {
            int fallbacks = 0;
            for (const auto& op : ev->ops)
                if (op.mps_status == "fallback") {
                    ++fallbacks;
                    item.evidence.push_back("trace: " + op.op + " (" + op.phase + ", x" + std::to_string(op.count) + ")");
                }
            item.predicted = ev->predicted;
            item.status = fallbacks == 0 ? ItemStatus::pass : ItemStatus::warn;
            item.detail = fallbacks == 0 ? "every op of the step has an MPS kernel"
                                         : std::to_string(fallbacks) + " op(s) would run on the CPU (PYTORCH_ENABLE_MPS_FALLBACK=1) or raise without it";
        }
        a.items.push_back(item);
    }

    // 6: dtypes.
    {
        ChecklistItem item{6, "float64 / complex / mixed-precision boundaries checked", ItemStatus::pass, false, "", {}};
        const auto dtype_findings = select(findings, {"dtype"});
        cite_all(item, dtype_findings);
        bool blocking = std::any_of(dtype_findings.begin(), dtype_findings.end(), [](const Finding* f) { return f->impact != VerdictImpact::none; });
        item.status = dtype_findings.empty() ? ItemStatus::pass : (blocking ? ItemStatus::fail : ItemStatus::warn);
        item.detail = dtype_findings.empty() ? "no float64/complex128 use found statically"
                                             : std::to_string(dtype_findings.size()) + " float64/complex128 site(s): MPS has no float64";
        if (ev && !ev->float64_ops.empty()) {
            item.status = ItemStatus::fail;
            item.detail += "; at runtime " + std::to_string(ev->float64_ops.size()) + " op(s) ran in float64/complex128";
            for (const auto& op : ev->float64_ops) item.evidence.push_back("trace: " + op);
        }
        a.items.push_back(item);
    }

    // 7: checkpoint.
    {
        ChecklistItem item = runtime_only(7, "Checkpoint saves and restores elsewhere");
        if (ev && ev->checkpoint_ok) {
            item.status = *ev->checkpoint_ok ? ItemStatus::pass : ItemStatus::fail;
            item.detail = ev->checkpoint_detail;
            item.evidence.push_back("trace: checkpoint round-trip");
        }
        a.items.push_back(item);
    }

    // 8: numerics.
    {
        ChecklistItem item = runtime_only(8, "Accelerator vs CPU metrics within tolerance");
        if (ev && ev->numerics_ok) {
            item.status = *ev->numerics_ok ? ItemStatus::pass : ItemStatus::fail;
            item.detail = ev->numerics_detail;
            item.evidence.push_back("trace: numerics comparison");
        } else if (ev) {
            item.detail = "not run: audit without --compare cpu";
        }
        a.items.push_back(item);
    }

    // 9: CUDA-only code in the core path.
    const auto lock_in = select(findings, {"extension", "distributed", "dependency", "kernel"});
    std::vector<const Finding*> stay, dual;
    for (const Finding* f : lock_in) {
        if (f->impact == VerdictImpact::stay) stay.push_back(f);
        else if (f->impact == VerdictImpact::dual) dual.push_back(f);
    }
    {
        ChecklistItem item{9, "No CUDA-only extension or multi-GPU distributed training in the core path", ItemStatus::pass, false, "", {}};
        cite_all(item, stay);
        cite_all(item, dual);
        if (!stay.empty()) {
            item.status = ItemStatus::fail;
            item.detail = std::to_string(stay.size()) + " required CUDA-only piece(s) with no MPS replacement";
        } else if (!dual.empty()) {
            item.status = ItemStatus::warn;
            item.detail = std::to_string(dual.size()) + " CUDA-only piece(s) with a fallback or only needed at scale";
        } else {
            item.detail = "no CUDA-only extension, kernel, package or multi-GPU launch found";
        }
        a.items.push_back(item);
    }

    // The verdict.
    const auto first_stay = std::find_if(findings.begin(), findings.end(),
                                         [](const Finding& f) { return counts(f) && f.impact == VerdictImpact::stay; });
    const bool any_dual = std::any_of(findings.begin(), findings.end(),
                                      [](const Finding& f) { return counts(f) && f.impact == VerdictImpact::dual; });
    const bool core_failed = std::any_of(a.items.begin(), a.items.begin() + 5, [](const ChecklistItem& i) { return i.status == ItemStatus::fail; });
    // A warning (mechanical work with no verdict impact) does not stop a migration; a failure does.
    const bool late_failed = std::any_of(a.items.begin() + 5, a.items.end(), [](const ChecklistItem& i) { return i.status == ItemStatus::fail; });
    if (first_stay != findings.end()) {
        a.verdict = Verdict::stay_on_cuda;
        a.verdict_reason = "the core path needs CUDA-only code with no MPS replacement (" + cite(*first_stay) + ")";
    } else if (any_dual || late_failed || core_failed || a.items[4].status == ItemStatus::warn) {
        a.verdict = Verdict::dual_track;
        if (core_failed) a.verdict_reason = "the audited step did not pass items 1-5 on this host; fix them, then re-audit";
        else if (a.items[4].status == ItemStatus::warn)
            a.verdict_reason = "ops of the step fall back to the CPU on MPS (item 5): prototype on the Mac, train at full speed on Linux";
        else a.verdict_reason = "items 1-5 hold, but some of items 6-9 need work or a Linux GPU";
    } else {
        a.verdict = Verdict::migrate;
        a.verdict_reason = "nothing found that needs CUDA; the remaining edits are mechanical";
    }
    if (a.static_only) a.verdict_reason += " (static-only: runtime items not run)";
    return a;
}

}  // namespace mpsport
