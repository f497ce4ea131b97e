#include "reports/checklist.hpp"

#include <algorithm>

#include "reports/op_evidence.hpp"

namespace mpsport {
namespace {

std::string cite(const Finding& f) { return f.rule_id + "@" + f.location.path + ":" + std::to_string(f.location.line); }

// A finding that is work, not advice.
bool is_work(const Finding& f) { return f.severity != Severity::info; }

// Work findings whose category speaks to this checklist item (core/rule.hpp's one table).
std::vector<const Finding*> for_item(const std::vector<Finding>& findings, int item) {
    std::vector<const Finding*> out;
    for (const auto& f : findings)
        if (is_work(f) && checklist_item(f.category) == item) out.push_back(&f);
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
    return {number, std::move(title), ItemStatus::not_run, false, "not run: no audit trace (run `mpsport audit -- CMD`)", {}};
}

ChecklistItem item_environment(int n, const std::vector<Finding>& findings, const Evidence* ev) {
    ChecklistItem item = runtime_only(n, n == 1 ? "MPS built" : "MPS available");
    if (n == 1) {
        const auto env = for_item(findings, 1);
        cite_all(item, env);
        if (!env.empty()) {
            item.status = ItemStatus::warn;
            item.detail = std::to_string(env.size()) + " environment piece(s) pin CUDA (wheel, base image, job script)";
        }
    }
    if (ev) {
        const bool ok = n == 1 ? ev->mps_built : ev->mps_available;
        item.predicted = ev->predicted;
        item.status = ok || ev->predicted ? ItemStatus::pass : ItemStatus::fail;
        item.detail = ev->predicted ? "predicted: this host has no MPS; an Apple Silicon Mac with PyTorch >= 2.0 has it"
                                    : (ok ? "yes, on this host" : "no, on this host");
        item.evidence.push_back("trace: torch " + ev->torch_version + " on " + ev->platform);
    }
    return item;
}

ChecklistItem item_devices(const std::vector<Finding>& findings, const Evidence* ev) {
    ChecklistItem item{3, "Params, inputs, targets, outputs on the expected device", ItemStatus::pass, false, "", {}};
    const auto device_findings = for_item(findings, 3);
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
    return item;
}

ChecklistItem item_step(const Evidence* ev) {
    ChecklistItem item = runtime_only(4, "At least one forward + backward + optimizer update");
    if (!ev) return item;
    const bool ok = ev->forward && ev->backward && ev->optimizer_steps > 0;
    item.status = ok ? ItemStatus::pass : ItemStatus::fail;
    item.detail = ok ? std::to_string(ev->optimizer_steps) + " optimizer step(s) completed"
                     : "incomplete: " + (ev->incomplete_reason.empty() ? std::string("no optimizer step") : ev->incomplete_reason);
    item.evidence.push_back("trace: step");
    if (!ev->remap_target.empty()) {
        // A step that completed only because its CUDA calls were redirected is a trial port, not the script as written.
        long redirects = 0;
        for (const auto& r : ev->redirects) redirects += r.count;
        item.detail += std::string(ok ? " under" : "; ran under") + " --remap cuda=" + ev->remap_target + " (" +
                       std::to_string(redirects) + " redirect(s) of " + std::to_string(ev->redirects.size()) + " CUDA API(s)";
        if (!ev->blocked.empty()) item.detail += ", " + std::to_string(ev->blocked.size()) + " not redirectable";
        item.detail += ")";
        item.evidence.push_back("trace: remap");
    }
    return item;
}

// `target_torch`: the PyTorch version the scan's op tables were read for (the upgrade what-if).
ChecklistItem item_fallbacks(const std::vector<Finding>& findings, const Evidence* ev, const std::string& target_torch) {
    ChecklistItem item = runtime_only(5, "No unexplained persistent CPU fallback");
    // Predictions that matter: on the training path (not tests or dead files), kept at the rule's weight
    // of major or more (not under torch.no_grad() for a backward-only op, not an op the next PyTorch
    // supports). They show the item as a warning; only the fallbacks a trace observes move the verdict
    // (decide): the source does not say whether a round-trip is persistent.
    std::vector<const Finding*> predicted;
    for (const Finding* f : for_item(findings, 5))
        if (f->rule_severity >= Severity::major && f->severity != Severity::info && (f->reach == Reach::core || f->reach == Reach::optional))
            predicted.push_back(f);
    cite_all(item, predicted);
    const std::string what_if = upgrade_what_if(findings, target_torch);
    if (!predicted.empty()) {
        item.predicted = true;
        item.status = ItemStatus::warn;
        item.detail = std::to_string(predicted.size()) + " call(s) predicted statically to fall back to the CPU or be slow on MPS";
    }
    if (!ev) {
        if (!what_if.empty()) item.detail += "; " + what_if;
        return item;
    }
    int fallbacks = 0;
    for (const auto& op : ev->ops)
        if (op.mps_status == "fallback") {
            ++fallbacks;
            // "= fingerprint": the same op at the same frame is also a static finding (reports/op_evidence.cpp).
            item.evidence.push_back("trace: " + op.op + " (" + op.phase + ", x" + std::to_string(op.count) + ")" +
                                    (op.finding.empty() ? "" : " = " + op.finding));
        }
    item.predicted = ev->predicted;
    item.status = fallbacks == 0 ? ItemStatus::pass : ItemStatus::warn;
    item.detail = fallbacks == 0 ? "every op of the step has an MPS kernel"
                                 : std::to_string(fallbacks) + " op(s) would run on the CPU (PYTORCH_ENABLE_MPS_FALLBACK=1) or raise without it";
    if (!predicted.empty()) item.detail += "; " + std::to_string(predicted.size()) + " call(s) predicted statically";
    if (!what_if.empty()) item.detail += "; " + what_if;
    return item;
}

ChecklistItem item_dtypes(const std::vector<Finding>& findings, const Evidence* ev) {
    ChecklistItem item{6, "float64 / complex / mixed-precision boundaries checked", ItemStatus::pass, false, "", {}};
    const auto dtype_findings = for_item(findings, 6);
    cite_all(item, dtype_findings);
    const bool blocking = std::any_of(dtype_findings.begin(), dtype_findings.end(), [](const Finding* f) { return f->impact != VerdictImpact::none; });
    item.status = dtype_findings.empty() ? ItemStatus::pass : (blocking ? ItemStatus::fail : ItemStatus::warn);
    item.detail = dtype_findings.empty() ? "no float64/complex128 reaching a device found statically"
                                         : std::to_string(dtype_findings.size()) + " float64/complex128 site(s) on a device: MPS has no float64";
    if (ev && !ev->float64_ops.empty()) {
        item.status = ItemStatus::fail;
        item.detail += "; at runtime " + std::to_string(ev->float64_ops.size()) + " op(s) ran in float64/complex128";
        for (const auto& op : ev->float64_ops) item.evidence.push_back("trace: " + op);
    }
    return item;
}

ChecklistItem item_checkpoint(const Evidence* ev) {
    ChecklistItem item = runtime_only(7, "Checkpoint saves and restores elsewhere");
    if (ev && ev->checkpoint_ok) {
        item.status = *ev->checkpoint_ok ? ItemStatus::pass : ItemStatus::fail;
        item.detail = ev->checkpoint_detail;
        item.evidence.push_back("trace: checkpoint round-trip");
    }
    return item;
}

ChecklistItem item_numerics(const std::vector<Finding>& findings, const Evidence* ev) {
    ChecklistItem item = runtime_only(8, "Accelerator vs CPU metrics within tolerance");
    cite_all(item, for_item(findings, 8));
    if (ev && ev->numerics_ok) {
        item.status = *ev->numerics_ok ? ItemStatus::pass : ItemStatus::fail;
        item.detail = ev->numerics_detail;
        item.evidence.push_back("trace: numerics comparison");
    } else if (ev) {
        item.detail = "not run: audit without --compare cpu";
    }
    return item;
}

ChecklistItem item_lock_in(const std::vector<Finding>& findings) {
    ChecklistItem item{9, "No CUDA-only extension or multi-GPU distributed training in the core path", ItemStatus::pass, false, "", {}};
    std::vector<const Finding*> stay, dual, edits;
    for (const Finding* f : for_item(findings, 9)) {
        if (f->impact == VerdictImpact::stay) stay.push_back(f);
        else if (f->impact == VerdictImpact::dual) dual.push_back(f);
        else if (f->category == "distributed" && f->reach == Reach::core) edits.push_back(f);
    }
    cite_all(item, stay);
    cite_all(item, dual);
    if (!stay.empty()) {
        item.status = ItemStatus::fail;
        item.detail = std::to_string(stay.size()) + " CUDA-only piece(s) in the core path with no MPS replacement";
    } else if (!dual.empty()) {
        item.status = ItemStatus::warn;
        item.detail = std::to_string(dual.size()) + " CUDA-only piece(s) with a fallback, only needed at scale, or off the core path";
    } else {
        item.detail = "no CUDA-only extension, kernel, package or multi-GPU launch in the core path";
        // a DDP wrapper or an NCCL process group set up unconditionally: one process runs once they are
        // made optional (at world size 1 the wrapper is the model itself), an edit and not a GPU
        if (!edits.empty()) {
            cite_all(item, edits);
            item.detail += "; " + std::to_string(edits.size()) + " distributed set-up edit(s) to run as one process (at world size 1 DDP is the model itself)";
        }
    }
    return item;
}

// The findings a verdict rests on, strongest first: the core ones with the shortest chain.
std::string basis(const std::vector<Finding>& findings, VerdictImpact impact) {
    std::vector<const Finding*> fs;
    for (const auto& f : findings)
        if (is_work(f) && f.impact == impact) fs.push_back(&f);
    std::stable_sort(fs.begin(), fs.end(), [](const Finding* a, const Finding* b) {
        return std::make_pair(static_cast<int>(a->reach), a->chain.size()) < std::make_pair(static_cast<int>(b->reach), b->chain.size());
    });
    std::string out;
    for (std::size_t i = 0; i < fs.size() && i < 3; ++i) out += (i ? ", " : "") + cite(*fs[i]);
    if (fs.size() > 3) out += " and " + std::to_string(fs.size() - 3) + " more";
    return out;
}

std::string items_text(const std::vector<ChecklistItem>& items, ItemStatus status) {
    std::string out;
    for (const auto& i : items)
        if (i.status == status) out += (out.empty() ? "" : ", ") + std::to_string(i.number) + " (" + i.title + ")";
    return out;
}

void decide(Assessment& a, const std::vector<Finding>& findings) {
    const bool any_stay = std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return is_work(f) && f.impact == VerdictImpact::stay; });
    const bool any_dual = std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return is_work(f) && f.impact == VerdictImpact::dual; });
    const std::string failed = items_text(a.items, ItemStatus::fail);
    // Observed in a traced step, not predicted from the source alone (item_fallbacks).
    const bool fallbacks = a.items[4].status == ItemStatus::warn && !a.static_only;
    if (any_stay) {
        a.verdict = Verdict::stay_on_cuda;
        a.verdict_reason = "item 9 fails: the core path needs CUDA-only code with no MPS replacement (" + basis(findings, VerdictImpact::stay) + ")";
    } else if (any_dual || !failed.empty() || fallbacks) {
        a.verdict = Verdict::dual_track;
        std::vector<std::string> why;
        if (!failed.empty()) why.push_back("item(s) " + failed + " fail");
        if (fallbacks) why.push_back("ops fall back to the CPU on MPS (item 5)");
        if (any_dual) why.push_back("CUDA-only or float64 pieces with a workaround, or off the core path (" + basis(findings, VerdictImpact::dual) + ")");
        a.verdict_reason = "prototype on the Mac, keep a Linux GPU: ";
        for (std::size_t i = 0; i < why.size(); ++i) a.verdict_reason += (i ? "; " : "") + why[i];
    } else {
        a.verdict = Verdict::migrate;
        const std::string warned = items_text(a.items, ItemStatus::warn);
        a.verdict_reason = warned.empty() ? "nothing found that needs CUDA" : "the remaining edits are mechanical (items " + warned + ")";
    }
    if (a.static_only) a.verdict_reason += " (static-only: runtime items not run)";
}

void rate_confidence(Assessment& a, const std::vector<Finding>& findings, const ScanResult* scan) {
    bool hard = false;
    if (a.static_only) a.confidence_causes.push_back("static-only: no audit trace, runtime items 2, 4, 7, 8 not run");
    if (scan) {
        if (!scan->skipped.empty()) {
            hard = true;
            std::string names;
            for (std::size_t i = 0; i < scan->skipped.size() && i < 3; ++i)
                names += (i ? ", " : "") + scan->skipped[i].path + " (" + scan->skipped[i].reason + ")";
            if (scan->skipped.size() > 3) names += " and " + std::to_string(scan->skipped.size() - 3) + " more";
            a.confidence_causes.push_back(std::to_string(scan->skipped.size()) + " file(s) that could hold findings were not read: " + names);
        }
        if (!scan->program.complete) a.confidence_causes.push_back(scan->program.incomplete_reason);
    }
    std::size_t unreached_blockers = 0;
    for (const auto& f : findings)
        if (f.reach == Reach::unreached && f.rule_impact == VerdictImpact::stay) ++unreached_blockers;
    if (unreached_blockers > 0)
        a.confidence_causes.push_back(std::to_string(unreached_blockers) +
                                      " CUDA-only finding(s) in files no entry point reaches: name the real entry points with --entry if they run");
    a.confidence = hard ? Confidence::low : a.confidence_causes.empty() ? Confidence::high : Confidence::medium;
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

std::string_view to_string(Confidence c) {
    switch (c) {
        case Confidence::high: return "high";
        case Confidence::medium: return "medium";
        case Confidence::low: return "low";
    }
    return "low";
}

Assessment assess(const std::vector<Finding>& findings, const Evidence* ev, const RuleCatalogue& catalogue,
                  const std::map<std::string, std::size_t>& file_lines, const ScanResult* scan) {
    Assessment a;
    a.static_only = ev == nullptr;
    a.effort = estimate_effort(findings, catalogue, file_lines);
    const std::string target_torch = scan ? scan->target_torch : std::string();
    a.items = {item_environment(1, findings, ev), item_environment(2, findings, ev), item_devices(findings, ev), item_step(ev),
               item_fallbacks(findings, ev, target_torch),    item_dtypes(findings, ev),         item_checkpoint(ev),         item_numerics(findings, ev),
               item_lock_in(findings)};
    decide(a, findings);
    rate_confidence(a, findings, scan);
    return a;
}

}  // namespace mpsport
