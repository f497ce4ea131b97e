#include <algorithm>

#include "analyzer/manifests/pep508.hpp"
#include "analyzer/program/program_model.hpp"
#include "core/walker.hpp"

namespace mpsport::program {
namespace {

bool is_native_source(const std::string& path) {
    for (std::string_view ext : {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp"})
        if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
    return false;
}

RelatedLocation call_location(const CallSite& c, const std::string& what) {
    return related_line(c.path, c.line, "calls " + what + (c.guard != GuardKind::none ? " (" + std::string(to_string(c.guard)) + " guard)" : ""));
}

// An op of a compiled module is as needed as the Python calls of it: a CUDA-only op that the
// training run never calls does not keep the run on CUDA, one that it calls does. True when every
// call sits under a device check, which the finding now carries: a Mac takes the path beside them.
bool weigh_by_op_calls(const ProgramModel& model, const ExtensionLink* ext, Finding& f, FileReach& r) {
    const auto colons = f.native_op.find("::");
    std::vector<CallSite> calls;
    bool module_called = false;
    if (colons != std::string::npos) {  // a TORCH_LIBRARY op: called through torch.ops.<ns>
        const std::string ns = f.native_op.substr(0, colons);
        calls = model.ops_calls(ns, f.native_op.substr(colons + 2), f.location.path);
        module_called = !model.ops_calls(ns, "", f.location.path).empty();
    } else if (ext) {
        for (const auto& c : ext->calls)
            if (c.op == f.native_op) calls.push_back(c);
    }
    module_called = module_called || (ext && !ext->calls.empty());
    for (const auto& c : calls) f.related.push_back(call_location(c, f.native_op));
    bool routed = false;
    // Every call under a guard (stylegan3's `if impl == 'cuda' and x.device.type == 'cuda' and _init():`):
    // the op runs only where the weakest of them holds, wherever the calling file is reached from.
    if (!calls.empty() && f.guard == GuardKind::none &&
        std::none_of(calls.begin(), calls.end(), [](const CallSite& c) { return c.guard == GuardKind::none; })) {
        const auto weakest = std::max_element(calls.begin(), calls.end(), [](const CallSite& a, const CallSite& b) {
            return guard_strength(a.guard) < guard_strength(b.guard);
        });
        f.guard = weakest->guard;
        f.guard_note = "every Python call of " + f.native_op + " is guarded; " + weakest->path + ":" + std::to_string(weakest->line) + ": " +
                       weakest->guard_note;
        routed = f.guard == GuardKind::device_check;
    }
    // An op no Python file names at all, while other ops of its module are called (GLIP's
    // deform_psroi_pooling_forward, bound in vision.cpp beside the deformable convolutions its models
    // call): nothing runs it (judged so in a sample of the thirty-sixth and thirty-seventh holdouts'
    // reports). Not a TORCH_LIBRARY op, whose schema string may be its only mention.
    if (calls.empty() && ext && !ext->calls.empty() && colons == std::string::npos && f.guard == GuardKind::none &&
        !model.names_in_python(f.native_op, f.location.path)) {
        f.guard = GuardKind::never_called;
        f.guard_note = "no Python file of the repository names " + f.native_op + ", while other ops of " + ext->fact.name + " are called";
        return routed;
    }
    const auto called = model.reach_of_calls(calls);
    if (called && called->level > Level::unreached) {
        r = *called;
        // A module the run imports only with a fallback beside it (RAFT's `try: import alt_cuda_corr`
        // / `except: pass`): where it is missing, the code must go around its calls, so an op of it is
        // no more needed than the module is, however unguarded the calls read. Not a module that a
        // CPU build provides too (torchsparse's CppExtension without CUDA): its CUDA-only ops are
        // missing from that build, and calling one fails.
        // Nor, however its calls read, an op of a module the documented install does not build.
        const bool not_built = ext && ext->reach.guard == GuardKind::off_by_default;
        if (ext && (not_built || (!ext->fact.cuda_optional && ext->reach.level == Level::optional_fallback && ext->reach.guard == GuardKind::import_fallback)) &&
            r.level > ext->reach.level) {
            r.level = ext->reach.level;
            r.guard = ext->reach.guard;
            r.guard_note = ext->reach.guard_note;
        }
    } else if (module_called && r.level > Level::optional_fallback) {
        // No call, or calls only inside functions that nothing imports or calls.
        r.level = Level::optional_fallback;
        r.guard = GuardKind::import_fallback;
        r.guard_note = (called ? called->guard_note : "no Python call of " + f.native_op + " was found") + ", while other ops of " +
                       f.subject + " are called";
    }
    return routed;
}

// Built or imported unconditionally, but every call of its ops sits behind a guard with another
// path beside it (stylegan2's ops: the CUDA kernel off the CPU, a pure-PyTorch twin on it): the run
// needs the build only because it happens at import. Making it lazy and sending MPS down the other
// path is the port: dual-track at most, for the build and for the sources it compiles.
void cap_by_guarded_calls(const ProgramModel& model, const ExtensionLink& ext, FileReach& r) {
    const auto called = ext.calls.empty() ? std::nullopt : model.reach_of_calls(ext.calls);
    // Calls the model sees no entry reach (a method run through nn.Module's __call__) say nothing.
    if (!called || r.level <= Level::optional_fallback || called->level > Level::optional_fallback || called->level < Level::optional_dead) return;
    r.level = Level::optional_fallback;
    // No guard: the build at import runs unconditionally, so as written the run cannot do without it
    // (rosinality's stylegan2 ops; judged major, an edit, not an extension to leave off)
    r.guard = GuardKind::none;
    r.guard_note = "every call of its ops has another path beside it (" + called->guard_note + "); only the build at import needs CUDA: make it lazy";
}

// A weight taken after `weigh`, from what the whole repository's findings say (`why`: the reason).
void weigh_again(Finding& f, const WeightRule& w, const std::string& why) {
    const Severity before = f.severity;
    const VerdictImpact impact_before = f.impact;
    f.severity = static_cast<Severity>(std::max(0, static_cast<int>(f.severity) - w.severity_drop));
    f.impact = static_cast<VerdictImpact>(std::max(0, static_cast<int>(f.impact) - w.impact_drop));
    if (w.max_severity) f.severity = std::min(f.severity, *w.max_severity);
    if (w.impact_cap) f.impact = std::min(f.impact, *w.impact_cap);
    if (f.severity == before && f.impact == impact_before) return;
    const std::string note =
        "now " + std::string(to_string(f.severity)) + "/" + std::string(to_string(f.impact)) + ": " + why + (w.why.empty() ? "" : " (" + w.why + ")");
    f.note = f.note.empty() ? "rule weight " + std::string(to_string(f.rule_severity)) + "/" + std::string(to_string(f.rule_impact)) + ", " + note
                            : f.note + "; " + note;
}

// `torchrun --nproc_per_node=8 train.py` where train.py has no unguarded distributed finding of its
// own: it runs as one process as is (nanoGPT's DDP behind RANK, timm's behind args.distributed), so the
// launcher is a way to scale out (rules/program.yaml scale_out_launch). A script that does need several
// processes keeps its own findings, and a launcher whose script is not found keeps its weight (one
// whose script the repository does not ship at all is unreached: see apply_program_model).
void weigh_scale_out_launches(const ProgramModel& model, const ProgramVocabulary& vocabulary, std::vector<Finding>& findings) {
    if (!vocabulary.scale_out) return;
    for (auto& f : findings) {
        if (std::find(vocabulary.scale_out_rules.begin(), vocabulary.scale_out_rules.end(), f.rule_id) == vocabulary.scale_out_rules.end()) continue;
        const auto script = model.launched_at(f.location.path, f.location.line);
        if (!script) continue;
        const bool needs_processes = std::any_of(findings.begin(), findings.end(), [&](const Finding& g) {
            return g.location.path == *script && g.category == "distributed" && g.guard == GuardKind::none && g.impact > VerdictImpact::none;
        });
        if (needs_processes) continue;
        weigh_again(f, *vocabulary.scale_out, "launches " + *script + ", whose own distributed code is behind a gate, absent, or an edit that moves no verdict (a backend name, a DDP wrapper)");
    }
}

// stable-fast-3d's texture baker: `extension = CUDAExtension if use_cuda else CppExtension`, and every op
// the extension exports has an MPS kernel (an Objective-C++ .mm registration). The Mac builds the
// extension without CUDA and runs those kernels: the CUDA build is the Linux hosts' (rules/program.yaml
// mps_build). An op without one (GroundingDINO's CUDA-only deformable attention) keeps the build's weight,
// and so does an extension whose ops the scan did not find.
void weigh_mps_builds(const ProgramModel& model, const ProgramVocabulary& vocabulary, std::vector<Finding>& findings) {
    if (!vocabulary.mps_build) return;
    std::map<const ExtensionLink*, std::pair<int, int>> ops;  // the extension -> its op findings, those with an MPS kernel
    for (const auto& f : findings) {
        if (f.native_op.empty() || !is_native_source(f.location.path)) continue;
        const ExtensionLink* ext = model.extension_with_source(f.location.path);
        if (!ext) continue;
        auto& [all, mps] = ops[ext];
        ++all;
        if (std::find(vocabulary.mps_build_rules.begin(), vocabulary.mps_build_rules.end(), f.rule_id) != vocabulary.mps_build_rules.end()) ++mps;
    }
    for (auto& f : findings) {
        if (f.category != "extension" || !f.native_op.empty()) continue;
        const ExtensionLink* ext = model.extension_defined_at(f.location.path, f.location.line);
        if (!ext || !ext->fact.cuda_optional) continue;
        const auto counted = ops.find(ext);
        if (counted == ops.end() || counted->second.first == 0 || counted->second.first != counted->second.second) continue;
        weigh_again(f, *vocabulary.mps_build, "every op of " + ext->fact.name + " has an MPS kernel (" + std::to_string(counted->second.first) +
                                                  "), and a build without CUDA is beside this one");
    }
}

// One cause, one finding: a file that defines a CUDA kernel (cuda-kernel-source, whose effort is by the
// kernel's own lines) is ported with its kernels; the shared memory, device functions, launches,
// atomics and library calls found in it, or in a header beside it (mamba's reverse_scan.cuh, which
// selective_scan_bwd_kernel.cuh includes), are parts of that port, not edits of their own
// (rules/program.yaml kernel_details). Weighed after the reach, so they stay at or below the kernel.
void fold_kernel_details(const ProgramVocabulary& vocabulary, std::vector<Finding>& findings) {
    if (!vocabulary.kernel_detail || vocabulary.kernel_rule.empty()) return;
    const auto folder = [](const std::string& path) { return path.substr(0, path.find_last_of('/') + 1); };
    std::map<std::string, std::pair<std::string, int>> kernel_at;  // a kernel file, and each folder holding one -> its first kernel
    for (const auto& f : findings) {
        if (f.rule_id != vocabulary.kernel_rule) continue;
        for (const std::string& key : {f.location.path, folder(f.location.path)}) {
            auto [it, fresh] = kernel_at.emplace(key, std::make_pair(f.location.path, f.location.line));
            if (!fresh && std::make_pair(f.location.path, f.location.line) < it->second) it->second = {f.location.path, f.location.line};
        }
    }
    const auto listed = [](const std::vector<std::string>& rules, const std::string& id) { return std::find(rules.begin(), rules.end(), id) != rules.end(); };
    const auto cuda_source = [](const std::string& path) {
        return (path.size() > 3 && path.compare(path.size() - 3, 3, ".cu") == 0) || (path.size() > 4 && path.compare(path.size() - 4, 4, ".cuh") == 0);
    };
    for (auto& f : findings) {
        // Host-side CUDA (cudaDeviceSynchronize in a CHECK_CUDA macro, cudaMemcpy, at::cuda streams and
        // guards around a launch) goes with the kernels only where nvcc alone reads it.
        if (!listed(vocabulary.kernel_detail_rules, f.rule_id) && !(listed(vocabulary.kernel_detail_cuda_rules, f.rule_id) && cuda_source(f.location.path)))
            continue;
        auto it = kernel_at.find(f.location.path);
        if (it == kernel_at.end() && is_native_header(f.location.path)) it = kernel_at.find(folder(f.location.path));
        if (it == kernel_at.end()) continue;
        const auto& [file, line] = it->second;
        weigh_again(f, *vocabulary.kernel_detail,
                    file == f.location.path ? "a part of the kernels this file defines (" + vocabulary.kernel_rule + ", line " + std::to_string(line) + ")"
                                            : "a header beside the kernels of " + file + " (" + vocabulary.kernel_rule + ", line " + std::to_string(line) + ")");
    }
}

// The same for a Python file that imports a kernel language (triton) with no guard: its launchers'
// device guards and CUDA buffers are parts of its kernels' port (rules/program.yaml package_details).
void fold_package_details(const ProgramVocabulary& vocabulary, std::vector<Finding>& findings) {
    if (!vocabulary.package_detail || vocabulary.package_detail_rule.empty()) return;
    std::map<std::string, std::pair<std::string, int>> import_at;  // file -> (package, line of its first unguarded import)
    for (const auto& f : findings) {
        if (f.rule_id != vocabulary.package_detail_rule || f.guard != GuardKind::none) continue;
        const auto& packages = vocabulary.package_detail_packages;
        if (std::find(packages.begin(), packages.end(), f.subject) == packages.end()) continue;
        auto [it, fresh] = import_at.emplace(f.location.path, std::make_pair(f.subject, f.location.line));
        if (!fresh && f.location.line < it->second.second) it->second = {f.subject, f.location.line};
    }
    for (auto& f : findings) {
        const auto& rules = vocabulary.package_detail_rules;
        if (std::find(rules.begin(), rules.end(), f.rule_id) == rules.end()) continue;
        const auto it = import_at.find(f.location.path);
        if (it == import_at.end()) continue;
        weigh_again(f, *vocabulary.package_detail,
                    "a part of the " + it->second.first + " kernels of this file (" + vocabulary.package_detail_rule + ", line " +
                        std::to_string(it->second.second) + ")");
    }
}

bool is_python_source(const std::string& path) {
    return path.size() > 3 && (path.compare(path.size() - 3, 3, ".py") == 0 || path.compare(path.size() - 6, 6, ".ipynb") == 0);
}

bool is_cmake_file(const std::string& path) {
    FileKind kind;
    return classify_file(path, kind) && kind == FileKind::cmake;
}

bool is_setup_py(const std::string& path) {
    return path == "setup.py" || (path.size() > 9 && path.compare(path.size() - 9, 9, "/setup.py") == 0);
}

// A declaration of a package (requirements, environment.yml, setup.py's install_requires) as opposed
// to a use of it in the code (an import, or a keyword through which another library loads it).
bool is_declaration(const Finding& f) {
    return f.category == "dependency" && !f.subject.empty() && (!is_python_source(f.location.path) || is_setup_py(f.location.path));
}

// Whether a declaration names the distribution by the import name itself (`pytorch3d`, `'mmcv>=2'`),
// not another build of it (`mmcv-full`): PEP 508's name, normalised on both sides.
bool declares_import_name(const Finding& d) {
    std::string text = d.matched;
    text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '"' || c == '\''; }), text.end());
    try {
        const auto requirement = manifests::parse_requirement(text);
        return requirement && manifests::normalise_name(requirement->name) == manifests::normalise_name(d.subject);
    } catch (const std::exception&) {
        return false;  // not a requirement string (an environment.yml line pip would reject)
    }
}

// A declared package is as needed as the code's uses of it. When the code imports or loads it, and
// every such use weighs less where it stands (its guard, the branch it sits in: the weight its
// analysis gave it, before reach), the declaration takes the heaviest of them: MiniGPT-4's
// bitsandbytes, loaded only through `load_in_8bit=True` under `if low_resource:`. The declaration's
// own reach (that of its importers) still weighs on top. Uses at info with no guard say which build of
// the package the code needs (onnxruntime), not whether the run needs it: they leave the declaration
// as it is. Imports of pure-Python parts only (pytorch3d.transforms, mmcv.utils) are uses like others. A package the code never uses keeps the declaration's own weight.
void cap_declarations_by_uses(const ProgramModel& model, std::vector<Finding>& findings) {
    // A use that only switches the package on for speed raises until it is dropped (major), but the
    // declaration it leaves is one line to keep out of the Mac install: minor (Marigold's
    // requirements++.txt xformers, judged right at minor in the sample of seed 20261209).
    const auto use_severity = [](const Finding& u) { return u.note.find(kToggleNote) != std::string::npos ? std::min(u.rule_severity, Severity::minor) : u.rule_severity; };
    for (auto& d : findings) {
        if (!is_declaration(d)) continue;
        const Finding* heaviest = nullptr;
        bool build_only = false;
        for (const auto& u : findings) {
            if (u.category != "dependency" || u.subject != d.subject || is_declaration(u) || !is_python_source(u.location.path)) continue;
            if (!model.same_project(u.location.path, d.location.path)) continue;
            // Not an import of pure-Python parts only (pytorch3d.transforms) where the declaration names the
            // package itself: that installs on macOS as declared, and what the code takes from it runs
            // there. A declared CUDA build (mmcv-full) is still a build choice.
            if (u.rule_severity == Severity::info && u.guard == GuardKind::none &&
                !(u.note.rfind(kPurePartsNote, 0) == 0 && declares_import_name(d)))
                build_only = true;
            if (!heaviest || std::make_pair(u.rule_impact, use_severity(u)) > std::make_pair(heaviest->rule_impact, use_severity(*heaviest))) heaviest = &u;
        }
        if (!heaviest && !model.is_own_package(d.subject, d.location.path) && d.impact > VerdictImpact::none && model.has_training_entries()) {
            // ChatGLM-6B declares cpm_kernels for the quantisation code its Hub model runs
            // (`AutoModel.from_pretrained(..., trust_remote_code=True)`, then `model.quantize(4)`).
            if (const auto site = model.remote_code_in(d.location.path)) {
                d.note = (d.note.empty() ? std::string() : d.note + "; ") + "no code of the repository imports " + d.subject + ", but " + *site +
                         " runs model code from the Hub (trust_remote_code=True), which may: as declared";
                const auto [site_path, site_line] = split_chain_step(*site);
                d.related.push_back(related_line(site_path, site_line, "runs model code from the Hub"));
                continue;
            }
            // Declared, and imported or loaded by no code of the repository (generative-models pins
            // triton in requirements/pt2.txt and never imports it): leaving it out of the Mac install is
            // the edit, and nothing the run does needs it.
            d.impact = VerdictImpact::none;
            d.note = (d.note.empty() ? "rule weight " + std::string(to_string(d.rule_severity)) + "/" + std::string(to_string(d.rule_impact)) + ", "
                                     : d.note + "; ") +
                     "now " + std::string(to_string(d.severity)) + "/none: no code of the repository imports " + d.subject +
                     ": leave it out of the Mac install";
            continue;
        }
        if (!heaviest || build_only) continue;
        if (heaviest->rule_impact >= d.impact && use_severity(*heaviest) >= d.severity) continue;
        const VerdictImpact impact = std::min(d.impact, heaviest->rule_impact);
        const Severity severity = std::min(d.severity, use_severity(*heaviest));
        std::string why = heaviest->note.substr(0, heaviest->note.find("; rule weight"));
        const std::string note = "now " + std::string(to_string(severity)) + "/" + std::string(to_string(impact)) + ": as needed as its heaviest use in the code, " +
                                 heaviest->location.path + ":" + std::to_string(heaviest->location.line) + (why.empty() ? "" : " (" + why + ")");
        d.impact = impact;
        d.severity = severity;
        d.related.push_back(related_line(heaviest->location.path, heaviest->location.line, "the heaviest use of " + d.subject));
        d.note = d.note.empty() ? "rule weight " + std::string(to_string(d.rule_severity)) + "/" + std::string(to_string(d.rule_impact)) + ", " + note
                                : d.note + "; " + note;
    }
}

}  // namespace

void weigh(Finding& f, Level level, const FileReach& reach, const ProgramVocabulary& vocabulary,
           const std::vector<std::pair<const WeightRule*, std::string>>& context, const WeightRule* guard_weight_override) {
    int drop = 0;
    int impact_drop = 0;
    std::optional<Severity> max_severity;
    std::optional<VerdictImpact> impact_cap;
    std::vector<std::string> why;
    auto take = [&](const WeightRule* w, std::string reason) {
        if (!w) return;
        if (!w->why.empty()) reason += " (" + w->why + ")";
        drop = std::max(drop, w->severity_drop);
        impact_drop = std::max(impact_drop, w->impact_drop);
        if (w->max_severity) max_severity = std::min(max_severity.value_or(Severity::blocker), *w->max_severity);
        if (w->impact_cap) impact_cap = std::min(impact_cap.value_or(VerdictImpact::stay), *w->impact_cap);
        why.push_back(std::move(reason));
    };
    auto guard_weight = [&](GuardKind g) -> const WeightRule* {
        auto it = vocabulary.guard_weights.find(g);
        return it == vocabulary.guard_weights.end() ? nullptr : &it->second;
    };
    auto reach_weight = [&](Reach r) -> const WeightRule* {
        auto it = vocabulary.reach_weights.find(r);
        return it == vocabulary.reach_weights.end() ? nullptr : &it->second;
    };
    // An import with a fallback (optional-cuda-only-package-import) carries its guard to say so; its
    // rule's weight is already the fallback's, so the guard does not weigh on it again.
    const bool weighed_by_rule = f.guard == GuardKind::import_fallback && f.category == "dependency" && is_python_source(f.location.path);
    if (f.guard != GuardKind::none && !weighed_by_rule)
        take(guard_weight_override ? guard_weight_override : guard_weight(f.guard), std::string(to_string(f.guard)) + " guard `" + f.guard_note + "`");
    switch (level) {
        case Level::optional_fallback:
        case Level::optional_dead:
            take(reach_weight(Reach::optional), reach.guard_note.empty() ? "optional" : "optional: " + reach.guard_note);
            if (level == Level::optional_dead)
                take(guard_weight_override && reach.guard == f.guard ? guard_weight_override : guard_weight(reach.guard),
                     std::string(to_string(reach.guard)) + " on the import chain");
            // A module imported only in one arm of a choice between implementations (LivePortrait's
            // animal-mode landmark runner, under `self.image_type == "animal_face"`): choosing the other
            // arm is the edit, as for code in that arm. Not any branch of a function (vid2vid's FlowNet2,
            // imported under `if opt.isTrain:`: training needs it), and not a program of its own beside
            // the main one (mark_side_programs), whose blockers are that program's: dual-track.
            else if (reach.guard == GuardKind::alternative_branch && !reach.side_program && reach.guard_note.rfind(kOnDemandBranchNote, 0) != 0)
                take(guard_weight(reach.guard), std::string(to_string(reach.guard)) + " on the import chain");
            break;
        case Level::tooling: take(reach_weight(Reach::tooling), reach.guard_note.empty() ? "tooling" : "tooling: " + reach.guard_note); break;
        case Level::unreached: take(reach_weight(Reach::unreached), reach.guard_note.empty() ? "unreached" : "unreached: " + reach.guard_note); break;
        case Level::core: break;
    }
    // An option the default run leaves off, on the way to the code (`if args.jit: from .ops import x`,
    // an extension built only on request): its weight too, wherever the file is reached from.
    // And a path a Mac never takes on the way into a file no training run reaches (an extension loaded
    // only under `if torch.cuda.is_available():`): where an entry reaches it, optional_dead weighs it.
    if ((reach.guard == GuardKind::off_by_default && level != Level::optional_dead && level != Level::core) ||
        ((level == Level::unreached || level == Level::tooling) && guard_strength(reach.guard) == 1))
        take(guard_weight(reach.guard), std::string(to_string(reach.guard)) + " on the import chain `" + reach.guard_note + "`");
    // What the rule's category adds for its reach (rules/program.yaml reach_weights_for).
    // Optional for a reason the model sees (a guard on the chain or around the calls), not only
    // because which ops the run calls is not known; and not the non-CPU branch, which MPS takes too
    // (rosinality's stylegan2 ops: judged major, an edit is needed).
    if (level == Level::tooling || level == Level::unreached || (reach.guard != GuardKind::none && reach.guard != GuardKind::non_cpu_branch)) {
        const Reach r = level == Level::tooling ? Reach::tooling : level == Level::unreached ? Reach::unreached : Reach::optional;
        if (auto by = vocabulary.reach_weights_for.find(f.category); by != vocabulary.reach_weights_for.end())
            if (auto it = by->second.find(r); it != by->second.end()) take(&it->second, std::string(to_string(r)) + " " + f.category);
        if (FileKind kind; !vocabulary.reach_weights_by_file_kind.empty() && classify_file(f.location.path, kind))
            if (auto by = vocabulary.reach_weights_by_file_kind.find(std::string(to_string(kind))); by != vocabulary.reach_weights_by_file_kind.end())
                if (auto it = by->second.find(r); it != by->second.end()) take(&it->second, std::string(to_string(r)) + " " + by->first + " file");
    }
    for (const auto& [weight, reason] : context) take(weight, reason);
    // A package for scale or speed (its own weight dual, below the rule's stay) imported in a module
    // the run imports only on demand in one branch (rules/program.yaml on_demand_package). Not in a
    // program of its own beside the main one, which imports it unconditionally: that program needs it
    // (minRF's advanced/main_t2i.py, which trains through deepspeed.initialize()).
    if (vocabulary.on_demand_package && f.category == "dependency" && is_python_source(f.location.path) && level == Level::optional_fallback &&
        reach.guard == GuardKind::alternative_branch && !reach.side_program && f.guard == GuardKind::none && f.rule_impact == VerdictImpact::dual)
        take(&*vocabulary.on_demand_package, "a package for scale or speed in a module imported on demand (" + reach.guard_note + ")");
    Severity severity = static_cast<Severity>(std::max(0, static_cast<int>(f.rule_severity) - drop));
    if (max_severity) severity = std::min(severity, *max_severity);
    VerdictImpact impact = static_cast<VerdictImpact>(std::max(0, static_cast<int>(f.rule_impact) - impact_drop));
    if (impact_cap) impact = std::min(impact, *impact_cap);
    f.severity = severity;
    f.impact = impact;
    if (severity == f.rule_severity && impact == f.rule_impact) return;
    std::string note = "rule weight " + std::string(to_string(f.rule_severity)) + "/" + std::string(to_string(f.rule_impact)) + ", now " +
                       std::string(to_string(severity)) + "/" + std::string(to_string(impact)) + ": ";
    for (std::size_t i = 0; i < why.size(); ++i) note += (i ? "; " : "") + why[i];
    f.note = f.note.empty() ? note : f.note + "; " + note;
}

void apply_program_model(const ProgramModel& model, const ProgramVocabulary& vocabulary, std::vector<Finding>& findings,
                         const std::set<std::string, std::less<>>& no_mac_import) {
    std::vector<Finding> kept;
    kept.reserve(findings.size());
    // The files that cannot be imported without CUDA: an unguarded module-level import of a package
    // with no Mac path (a stay-on-CUDA import) or none for macOS at all (tensorrt_llm), and whatever
    // imports such a file that way.
    std::map<std::string, std::string> cuda_bound;
    if (vocabulary.cuda_bound_tooling) {
        std::map<std::string, std::string> seeds;
        for (const auto& f : findings)
            if (f.category == "dependency" && is_python_source(f.location.path) &&
                (f.rule_impact == VerdictImpact::stay || no_mac_import.count(f.subject)) &&
                f.guard == GuardKind::none && !f.subject.empty() && !model.is_own_package(f.subject, f.location.path) &&
                model.imports_on_load(f.location.path, f.location.line))
                seeds.emplace(f.location.path, f.subject + " (" + f.location.path + ":" + std::to_string(f.location.line) + ")");
        // and the own compiled modules that only build with CUDA (a test of flash-attention's fused_dense_lib)
        seeds.merge(model.cuda_extension_importers());
        cuda_bound = model.importing_on_load(seeds);
    }
    // (file, import line or 0) -> ProgramModel::program_without
    std::map<std::pair<std::string, int>, std::optional<std::string>> program_without;
    for (auto& f : findings) {
        // `mamba_ssm` importing `mamba_ssm` is the repository itself, not an outside dependency.
        if (f.category == "dependency" && !f.subject.empty() && model.is_own_package(f.subject, f.location.path)) continue;
        FileReach r;
        const ExtensionLink* linked = nullptr;  // the extension the finding is of, if any
        bool routed = false;                    // an op whose every call a device check routes (device_routed_op)
        bool at_build = false;                  // the extension's build (setup.py's CUDAExtension), not its code
        bool product = false;                   // C++/CUDA of a repository whose Python is only scripts around it
        if (const ExtensionLink* ext = model.extension_defined_at(f.location.path, f.location.line)) {
            linked = ext;
            at_build = true;
            r = ext->reach;
            f.subject = ext->fact.name;
            for (const auto& site : ext->imports) {
                RelatedLocation rel;
                rel.location.path = site.path;
                rel.location.line = rel.location.end_line = site.line;
                rel.label = "imports " + ext->fact.name;
                f.related.push_back(std::move(rel));
            }
            for (const auto& c : ext->calls) f.related.push_back(call_location(c, ext->fact.name + "." + c.op));
            cap_by_guarded_calls(model, *ext, r);
        } else if (is_native_source(f.location.path)) {
            const ExtensionLink* src = model.extension_with_source(f.location.path);
            linked = src;
            if (src) {
                r = src->reach;
                f.subject = src->fact.name;
                cap_by_guarded_calls(model, *src, r);  // its kernels are as optional as its build
            } else {
                // C++/CUDA that no extension of the Python side names: built by CMake or a JIT loader,
                // or not at all. It is as needed as the own compiled modules the code imports
                // (`from geomops import _C`); with none, nothing shows the run needs it.
                if (model.is_tooling_path(f.location.path)) {
                    r.level = Level::tooling;
                } else if (model.native_is_the_product(f.location.path) && !model.vendored_root(f.location.path)) {
                    r.level = Level::core;
                    product = true;
                } else if (auto own = model.reach_of_unbuilt_own_modules(f.location.path)) {
                    r = *own;
                    // linked by name only: the run imports some compiled module of its own, but
                    // which of these ops it calls is not known, so a CUDA-only op is dual at most.
                    // No guard: nothing shows the run can do without it (gsplat's kernels).
                    if (r.level > Level::optional_fallback) {
                        r.level = Level::optional_fallback;
                        r.guard = GuardKind::none;
                        r.guard_note = "C++/CUDA linked only by the import of an own compiled module; which ops the run calls is not known";
                    }
                }
            }
            if (!f.native_op.empty() && r.level != Level::tooling) routed = weigh_by_op_calls(model, src, f, r);
        } else if (is_declaration(f)) {
            // a declaration (requirements, pyproject, setup.py's install_requires): as needed as its imports
            r = model.reach_of_importers(f.subject, f.location.path).value_or(model.reach_of(f.location.path));
            if (const auto elsewhere = model.imported_only_outside(f.subject, f.location.path)) {
                // CogView3's inference/requirements.txt lists deepspeed, which only sat/ imports: the
                // program it installs for never loads it. Dropping the line is the port.
                r.level = Level::tooling;
                r.guard = GuardKind::none;
                r.guard_note = *elsewhere;
                r.chain.clear();
            } else if (r.level == Level::unreached || r.level == Level::tooling) {
                // a dependency only tests import is still installed by everyone who installs the project
                if (!model.is_tooling_path(f.location.path)) r.level = std::max(r.level, Level::tooling);
            } else if (model.in_tooling_folder(f.location.path)) {
                // and one that a file in an examples or tests folder declares (peft's
                // examples/sft/requirements.txt) is installed only to run those: tooling, however
                // the package's own code imports it
                r.level = Level::tooling;
                r.guard_note = "declared only for the examples, tests or benchmarks in its folder";
                r.chain.clear();
            }
        } else if (const auto missing = is_python_source(f.location.path) ? std::nullopt : model.missing_launch_at(f.location.path, f.location.line)) {
            // ControlNet's vendored annotator/uniformer/exp/*/run.sh launches a tools/train.py it does not ship
            r.level = Level::unreached;
            r.guard_note = "the command launches " + *missing + ", which is not in this repository";
        } else {
            r = model.reach_of(f.location.path);
            if (!r.chain.empty()) r.chain.back() += ":" + std::to_string(f.location.line);
            if (r.level > Level::tooling && is_python_source(f.location.path))
                if (auto why = model.self_test_block(f.location.path, f.location.line)) {
                    r.level = Level::tooling;
                    r.guard_note = *why;
                    r.chain.clear();
                }
            // Tests that a conftest.py keeps from running without CUDA: skipped on a Mac.
            // So are those whose skip decorator tests a helper of the repository that answers no without CUDA.
            if (is_python_source(f.location.path) && guard_strength(f.guard) > guard_strength(GuardKind::test_skip))
                if (auto why = model.test_skip_of(f.location.path); why || (why = model.test_skip_at(f.location.path, f.location.line))) {
                    f.guard = GuardKind::test_skip;
                    f.guard_note = *why;
                }
        }
        f.reach = reach_for(r.level);
        if (f.reach == Reach::core || f.reach == Reach::optional) f.chain = r.chain;
        std::vector<std::pair<const WeightRule*, std::string>> context;
        // An extension build in Python whose sources are not written out (`sources=self.sources()`), in a
        // checkout with no .cu/.cuh file: whatever flags it passes, nvcc has nothing to compile.
        if (vocabulary.no_cuda_sources && f.category == "extension" && is_python_source(f.location.path) &&
            f.matched.find(".cu") == std::string::npos && (!linked || (!linked->fact.cuda && linked->sources.empty())) &&
            !model.has_cuda_sources(f.location.path))
            context.emplace_back(&*vocabulary.no_cuda_sources, "its sources are not written out");
        // A Python module a CMake file builds (analyzer/program/cmake_modules.cpp): CUDA only where its
        // sources, or those of a target it links, are .cu files.
        if (vocabulary.cpp_python_module && f.category == "extension" && is_cmake_file(f.location.path) && (!linked || !linked->fact.cuda))
            context.emplace_back(&*vocabulary.cpp_python_module, linked ? linked->fact.name + " has no .cu source" : "no Python module is made here");
        if (vocabulary.vendored_fallback && linked && (r.level == Level::optional_fallback || r.level == Level::optional_dead))
            if (auto root = model.vendored_root(linked->defined_in))
                context.emplace_back(&*vocabulary.vendored_fallback, linked->fact.name + " is built by " + *root + "/, a project copied into the repository");
        if (vocabulary.vendored && (r.level == Level::tooling || r.level == Level::unreached))
            if (auto root = model.vendored_root(f.location.path)) context.emplace_back(&*vocabulary.vendored, "vendored in " + *root + "/");
        // Not in the training run: a test, an example, a file nothing reaches, or a program of its own
        // beside the main one (HunyuanDiT's TensorRT-LLM runner). The run itself keeps its CUDA calls:
        // they are edits once the import is replaced.
        const bool beside_the_run = r.level == Level::tooling || r.level == Level::unreached ||
                                    (r.side_program && (r.level == Level::optional_fallback || r.level == Level::optional_dead));
        // (the imports and extension builds that make it so keep their weight: they are the reason)
        if (beside_the_run && f.category != "dependency" && f.category != "extension")
            if (const auto bound = cuda_bound.find(f.location.path); bound != cuda_bound.end())
                context.emplace_back(&*vocabulary.cuda_bound_tooling, "it " + bound->second);
        // Except in a test, benchmark or example, where a package that does not even install on macOS
        // only says the Mac leaves the file out (F5-TTS's runtime/triton_trtllm/ serving stack: imports
        // of tensorrt and tensorrt_llm judged "nothing to port" in a sample of the twenty-ninth holdout).
        // A program of its own keeps its import's weight (that program needs it), and so does a file
        // nothing reaches (the model may have missed its entry: one level below the rule).
        if (vocabulary.cuda_bound_tooling && r.level == Level::tooling && f.category == "dependency" &&
            f.guard == GuardKind::none && is_python_source(f.location.path) && no_mac_import.count(f.subject) &&
            model.imports_on_load(f.location.path, f.location.line))
            context.emplace_back(&*vocabulary.cuda_bound_tooling, f.subject + " does not install on macOS: a Mac leaves this file out");
        // (and a program of its own there, beside the main one: token2wav_dit.py, the Triton server's model)
        if (vocabulary.cuda_named_tooling && beside_the_run) {
            const auto cuda_word = [&](const std::string& name) -> std::optional<std::string> {
                for (const auto& word : name_words(name))
                    if (std::find(vocabulary.cuda_named_words.begin(), vocabulary.cuda_named_words.end(), word) != vocabulary.cuda_named_words.end()) return word;
                return std::nullopt;
            };
            std::optional<std::string> said;
            if (r.level == Level::tooling)
                if (const auto word = cuda_word(f.location.path)) said = "its file name says `" + *word + "`";
            // a folder beside the run named so (CosyVoice's runtime/triton_trtllm/, a Triton Inference
            // Server deployment on TensorRT engines, whose side program token2wav_dit.py was judged info in
            // the sample of seed 20261209): the whole folder is CUDA's
            std::optional<std::string> folder_word;
            if (!said)
                if (const auto dir = folder_where(f.location.path, [&](const std::string& name) { return (folder_word = cuda_word(name)).has_value(); }))
                    said = "its folder " + *dir + "/ says `" + *folder_word + "`";
            if (said) context.emplace_back(&*vocabulary.cuda_named_tooling, *said);
        }
        if (vocabulary.build_host && (r.level == Level::tooling || r.level == Level::unreached))
            if (const auto dir = folder_named(f.location.path, vocabulary.build_host_dirs)) context.emplace_back(&*vocabulary.build_host, "in " + *dir + "/");
        if (vocabulary.container_predictor)
            if (const auto cog = model.container_of(f.location.path))
                context.emplace_back(&*vocabulary.container_predictor, "the predictor that " + *cog + " names: Cog runs it in a Linux container");
        if (FileKind kind; !vocabulary.file_kind_weights.empty() && classify_file(f.location.path, kind))
            if (const auto w = vocabulary.file_kind_weights.find(std::string(to_string(kind))); w != vocabulary.file_kind_weights.end())
                context.emplace_back(&w->second, "in a " + w->first);
        // One program's blocker: the Python file it sits in, or the last one of its chain (an extension's
        // import; for its build too, which no program imports: Hunyuan3D-2's custom_rasterizer/setup.py,
        // whose extension only the texture pipeline loads, as its ops were already weighed).
        if (vocabulary.other_program && r.level == Level::core && f.rule_impact == VerdictImpact::stay) {
            std::string file = is_python_source(f.location.path) ? f.location.path : std::string();
            if ((file.empty() || at_build) && !r.chain.empty()) file = split_chain_step(r.chain.back()).first;
            if (!file.empty()) {
                // By the import's use where the scan read it (an import whose names the program does not
                // use), else by the file: asked once per file, since many findings share one.
                const int line = file == f.location.path && model.has_import_use(file, f.location.line) ? f.location.line : 0;
                auto known = program_without.find({file, line});
                if (known == program_without.end())
                    known = program_without.emplace(std::make_pair(file, line), line ? model.program_without(file, line) : model.program_without(file)).first;
                if (known->second)
                    context.emplace_back(&*vocabulary.other_program,
                                         *known->second + ", a program of the repository, runs without " +
                                             (line && model.program_reaches(*known->second, file)
                                                  ? "what " + file + ":" + std::to_string(line) + " imports (it uses none of the definitions that need it)"
                                                  : file));
            }
        }
        // (in code the run reaches: an op no entry reaches is as nothing as the device check makes it)
        const bool run_reaches = r.level != Level::unreached && r.level != Level::tooling;
        weigh(f, r.level, r, vocabulary, context, routed && run_reaches && vocabulary.device_routed_op ? &*vocabulary.device_routed_op : nullptr);
        if (product && f.reach == Reach::core && f.note.empty())
            f.note = "core: the repository's Python is scripts, tests and demos that import none of its modules, so its C++/CUDA is what it delivers";
        kept.push_back(std::move(f));
    }
    findings = std::move(kept);
    weigh_scale_out_launches(model, vocabulary, findings);
    weigh_mps_builds(model, vocabulary, findings);
    fold_kernel_details(vocabulary, findings);
    fold_package_details(vocabulary, findings);
    cap_declarations_by_uses(model, findings);
}

}  // namespace mpsport::program
