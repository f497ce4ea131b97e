// Guards that sit at the callers. A finding inside a module-level function with no guard of its own
// (yolov5's smart_DDP(), which wraps the model in DDP; called by train.py only under
// `if cuda and RANK != -1:`) runs only where that function is called. When every call of it, in its
// own file and in the files that import it from its module or its package, sits under a guard, the
// finding takes the weakest of those guards, and the calls become its related locations.
//
// A method of a module-level class is followed the same way, by its name: every `x.name(...)` in the
// repository's Python files (timm's Task.prepare_distributed(), which wraps the model in DDP; train.py
// calls it only under `if args.distributed:`). Not followed: dunder methods, the methods a framework
// calls by itself (rules/program.yaml implicit_methods), and names that more than a couple of dozen
// files write, or that a notebook writes.
//
// Only findings in files the training run reaches are followed (tests and examples weigh minor at most
// already), so the pass parses about 100 defining files and 270 importers on the 23-repository bench tree.
//
// A module that only one import inside a module-level function loads (axolotl's fix_mamba_attn_for_loss(),
// the one import of modeling_mamba.py) runs where that function runs: a module-level finding there is
// followed as if it sat at that import (ProgramModel::only_import_in_function).
//
// A class's __init__ goes by the class's name, its calls being the constructor calls (consistency_models'
// QKVFlashAttention, built only in one arm of a choice); a subclass or any other use of the name is a
// use other than a call.
//
// It stays unguarded when nothing shows every use: no call at all, a use other than a call (passed as
// a callback, stored, re-exported under another name), a decorated function (a decorator may register
// it; not one that only wraps: rules/program.yaml transparent_decorators), or one unguarded call. The defining files and their importers are parsed again, whole, here:
// the scan may have parsed only the regions of a file around its matches.

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "analyzer/method_callers.hpp"
#include "analyzer/program/program_model.hpp"
#include "analyzer/python/module_names.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scanner.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"
#include "core/trigger_set.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Does `imp` in `importer` name the module at `defined_in`, or its package?
// Does `imp` in `importer` name the module `module`, or its package?
bool imports_module_or_package(const ImportFact& imp, const std::string& importer, const std::string& module) {
    const std::string package = python::parent_module(module);
    const std::string target = python::import_target(imp, importer);
    if (imp.level > 0) return target == module || (!package.empty() && target == package);
    return python::names_module(module, target) || (!package.empty() && python::names_module(package, target));
}

bool is_candidate(const Finding& f, const RuleCatalogue& catalogue) {
    // An arm of a choice may yet run only where its callers' guards hold: they decide when stronger.
    // So may an option off by default: its callers may be tests that skip, or none at all.
    if ((f.guard != GuardKind::none && f.guard != GuardKind::alternative_branch && f.guard != GuardKind::off_by_default &&
         f.guard != GuardKind::default_arm) ||
        !ends_with(f.location.path, ".py"))
        return false;
    // An import in a function (consistency_models' `from flash_attn... import` in QKVFlashAttention's
    // __init__) runs where the function runs, as any statement there does.
    if (f.category == "op-support") return false;
    const Rule* rule = catalogue.find(f.rule_id);
    return rule && rule->engine == "python" && rule->guard == "downgrade";
}

// A method followed by name: not a dunder, not one a framework calls by itself.
bool followed_method(const std::string& name, const GuardVocabulary& vocab) {
    if (name.size() > 4 && name.compare(0, 2, "__") == 0 && name.compare(name.size() - 2, 2, "__") == 0) return false;
    return !matches_any_glob(vocab.implicit_methods, name);
}

// Whether `at` lies in a comment: a `#` before it on its line (python_comment_start).
bool in_python_comment(const std::string& text, std::size_t at) {
    const std::size_t newline = text.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    return at > start && python_comment_start(std::string_view(text).substr(start, at - start)) != std::string_view::npos;
}

// A query as the cache keys its answer: the file's content is the entry's own key.
std::string query_key(const python::PythonEngine::FunctionQuery& q) {
    std::string key = (q.methods ? "M|" : q.defining ? "D|" : "I|") + q.module + "|" + q.importer + "|";
    for (const auto& n : q.names) key += n + ",";
    key += "|";
    for (int line : q.lines) key += std::to_string(line) + ",";
    return key;
}

}  // namespace

// A package for scale or speed imported straight in a function that the training run calls only in
// one branch of each caller (litgpt's instantiate_bnb_optimizer(), called under `if
// isinstance(fabric.strategy.precision, BitsandbytesPrecision):`) is imported on demand, as an import
// in one branch is (python/analyses.cpp package_import): info, one arm of a choice. Calls from tests
// and other tooling say nothing about the run; with no call from the run, nothing changes. So too when
// the function's ImportError handler exits (FastChat's load_exllama_model(), called only under `if
// exllama_config:`): the handler makes the package required where the function runs, and the function
// runs only where the option is on. A function chosen, not called, in one branch (FastChat's
// generate_stream_exllama(), returned only under `elif is_exllama:`) counts as a call there.
bool Scanner::on_demand_by_callers(Finding& f, const std::string& function, const std::vector<std::pair<std::string, FunctionUses::Call>>& calls,
                                   const program::ProgramModel& model, bool api_function) const {
    const Rule* rule = m_catalogue.find(f.rule_id);
    const PackageInfo* pkg = f.subject.empty() ? nullptr : m_catalogue.find_import(f.subject);
    if (f.category != "dependency" || f.guard != GuardKind::none || !rule || !pkg || f.rule_impact == VerdictImpact::none || pkg->impact >= rule->impact)
        return false;
    std::vector<const std::pair<std::string, FunctionUses::Call>*> run;
    for (const auto& c : calls)
        if (model.reach_of(c.first).level > program::Level::tooling) run.push_back(&c);
    // Only tests and other tooling call it, where a script or a command is the run (pyg's to_cugraph(),
    // whose `import cudf` only its tests reach): a function of the package's API that a user calls by
    // choice. Not a class: a config may build it by name (a Hydra `_target_`, PickScore's
    // DeepSpeedAccelerator), which no parse of calls sees.
    auto on_demand = [&](std::string guard_note, const std::string& why) {
        f.severity = f.rule_severity = Severity::info;
        f.impact = f.rule_impact = VerdictImpact::none;
        f.guard = GuardKind::alternative_branch;
        f.guard_note = std::move(guard_note);
        f.note = "a package for scale or speed, imported on demand by " + function + "(): " + why;
    };
    if (run.empty()) {
        if (!api_function || calls.empty() || !model.has_training_entries() || model.reach_of(f.location.path).level <= program::Level::tooling)
            return false;
        on_demand("no file of the run calls " + function + "(); only " + calls.front().first + ":" + std::to_string(calls.front().second.line) +
                      " and other tooling do",
                  "a function of the API that the run never calls");
        for (const auto& c : calls) f.related.push_back(related_line(c.first, c.second.line, "uses " + c.second.name + "() (tooling)"));
        return true;
    }
    if (std::any_of(run.begin(), run.end(), [](const auto* c) { return c->second.branch.empty(); })) return false;
    const auto& [path, call] = *run.front();
    on_demand("every use of " + function + "() from the run sits in one branch, as " + path + ":" + std::to_string(call.line) + " in `" + call.branch + "`",
              "an option the run can leave off");
    for (const auto* c : run) f.related.push_back(related_line(c->first, c->second.line, "uses " + c->second.name + "() in `" + c->second.branch + "`"));
    return true;
}

void Scanner::guard_by_callers(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const fs::path& base,
                               const FunctionUsesMemo& memo, bool full_parse, std::vector<Finding>& findings) const {
    std::map<std::string, std::set<int>> lines_by_file;
    // The training run's files, tests, benchmarks and examples too (a test helper that every test
    // calling it skips without CUDA, flash-attention's tests/cute setup_tensors(), is info, not minor),
    // and files no entry point reaches: glide's CLIP encoders, whose CUDA field defaults every
    // construction overrides, are used only from notebooks.
    // A finding of a module that only an import inside a function loads runs where that function
    // does: the import's line is asked about too (used when the finding is in no function of its own).
    std::map<const Finding*, std::pair<std::string, int>> loaded_at;
    for (const auto& f : findings)
        if (is_candidate(f, m_catalogue)) {
            lines_by_file[f.location.path].insert(f.location.line);
            if (model.has_training_entries() && model.reach_of(f.location.path).level > program::Level::tooling)
                if (auto at = model.only_import_in_function(f.location.path)) {
                    lines_by_file[at->first].insert(at->second);
                    loaded_at.emplace(&f, std::move(*at));
                }
        }
    if (lines_by_file.empty()) return;
    build_engines();
    using Query = python::PythonEngine::FunctionQuery;
    // 1. Each file with candidates, parsed once: the function each line sits in, and its own calls of those.
    std::vector<std::string> defining;
    std::vector<std::vector<Query>> defining_queries;
    for (const auto& [path, lines] : lines_by_file) {
        defining.push_back(path);
        defining_queries.push_back({Query{{}, python::module_of_path(path), python::relative_base(path), true, lines}});
    }
    // Each file's answers: from the cache where it holds every query of the file (it keeps them with
    // the file's content), else from one parse, kept for the next scan.
    auto run = [&](const std::vector<std::string>& paths, const std::vector<std::vector<Query>>& queries) {
        std::vector<std::optional<std::vector<FunctionUses>>> out(paths.size());
        std::vector<std::vector<std::string>> keys(paths.size());
        std::vector<std::size_t> to_parse;
        for (std::size_t i = 0; i < paths.size(); ++i) {
            const auto* known = memo.known ? memo.known(paths[i]) : nullptr;
            std::vector<FunctionUses> found;
            for (const auto& q : queries[i]) {
                keys[i].push_back(query_key(q));
                if (!known) continue;
                const auto it = known->find(keys[i].back());
                if (it != known->end()) found.push_back(it->second);
            }
            if (found.size() == queries[i].size()) out[i] = std::move(found);
            else to_parse.push_back(i);
        }
        parallel_for(to_parse.size(), [&](std::size_t k) {
            const std::size_t i = to_parse[k];
            try {
                auto uses = m_python->uses_of_functions(read_file(base / paths[i]), queries[i], full_parse);
                if (uses.size() == queries[i].size()) out[i] = std::move(uses);
            } catch (const std::exception&) {
                // read a moment ago: if it is gone now, its uses are not known
            }
        });
        for (std::size_t i : to_parse) {
            if (!out[i] || !memo.keep) continue;
            std::map<std::string, FunctionUses> kept;
            for (std::size_t q = 0; q < keys[i].size(); ++q) kept.emplace(keys[i][q], (*out[i])[q]);
            memo.keep(paths[i], std::move(kept));
        }
        return out;
    };
    const auto own = run(defining, defining_queries);
    struct Calls {
        std::vector<std::pair<std::string, FunctionUses::Call>> calls;       // path, call
        std::vector<std::pair<std::string, FunctionUses::Call>> selections;  // path, a choice of it in a branch
        bool unknown = false;                                                // a use that is not a call
    };
    std::map<std::pair<std::string, std::string>, Calls> uses;       // (defining file, function) -> its uses
    std::map<std::string, std::set<std::string>> functions_of;       // defining file -> its functions with candidates
    std::map<std::string, std::set<std::string>> methods_of;         // defining file -> its methods with candidates
    std::map<std::string, std::map<int, std::string>> function_at;  // defining file -> line -> function (".method")
    std::map<std::string, const FunctionUses*> defined;              // defining file -> what its own parse saw
    std::map<std::string, std::vector<FunctionUses::ParameterDefault>> defaults_of;  // defining file -> parameter defaults on candidate lines
    const GuardVocabulary& vocab = m_catalogue.program().guards;
    for (std::size_t i = 0; i < defining.size(); ++i) {
        if (!own[i]) continue;
        const FunctionUses& u = own[i]->front();
        for (const auto& [line, name] : u.function_at) {
            if (name.empty()) continue;
            if (name[0] != '.') functions_of[defining[i]].insert(name);
            else if (followed_method(name.substr(1), vocab)) methods_of[defining[i]].insert(name.substr(1));
        }
        if (!functions_of.count(defining[i]) && !methods_of.count(defining[i])) continue;
        function_at[defining[i]] = u.function_at;
        defined[defining[i]] = &u;
        defaults_of[defining[i]] = u.parameter_defaults;
        for (const auto& c : u.calls) uses[{defining[i], c.name}].calls.emplace_back(defining[i], c);
        for (const auto& c : u.selections) uses[{defining[i], c.name}].selections.emplace_back(defining[i], c);
        for (const auto& name : u.other_uses) uses[{defining[i], name}].unknown = true;
    }
    // The shipped YAML/JSON run configs that name a class a registry decorator stores, as a word
    // (basicsr's `model_type: RealESRNetModel`, the first stage of Real-ESRGAN's documented training,
    // whose DiffJPEG().cuda() was judged too quiet as a chosen alternative in the sample of
    // 2026-12-08): the config's path and line. Read once, and only where such a class has a finding.
    std::optional<std::map<std::string, std::pair<std::string, int>>> config_named;
    const auto config_naming = [&](const std::string& name) -> const std::pair<std::string, int>* {
        if (!config_named) {
            config_named.emplace();
            std::set<std::string> names;
            for (const auto& [key, c] : uses)
                for (const auto& [path, s] : c.selections)
                    if (s.branch.rfind(FunctionUses::kRegisteredBy, 0) == 0 && !s.name.empty()) names.insert(s.name);
            if (!names.empty()) {
                const TriggerSet search(std::vector<std::string>(names.begin(), names.end()));
                const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
                for (const auto& r : records) {
                    if (r.kind != FileKind::config) continue;
                    std::string text;
                    try {
                        text = read_file(base / r.path);
                    } catch (const std::exception&) {
                        continue;  // the configs' own pass names what it could not read
                    }
                    for (const auto& [at, index] : search.find_each(text)) {
                        const std::string& n = search.literals()[index];
                        if ((at > 0 && word(text[at - 1])) || (at + n.size() < text.size() && word(text[at + n.size()]))) continue;
                        const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
                        config_named->emplace(n, std::make_pair(r.path, line));
                    }
                }
            }
        }
        const auto found = config_named->find(name);
        return found == config_named->end() ? nullptr : &found->second;
    };
    // 2. The files that import those modules or their packages, each parsed once for all of them. The
    // Python files by the last name of each module they import (`from ..utils import x` under "utils").
    auto last_name = [](const std::string& d) { return d.substr(d.rfind('.') == std::string::npos ? 0 : d.rfind('.') + 1); };
    std::map<std::string, std::vector<const program::FileRecord*>> importers_by_name;
    for (const auto& r : records) {
        if (!r.facts || r.kind != FileKind::python) continue;
        std::set<std::string> keys;
        for (const auto& imp : r.facts->imports)
            if (const std::string target = python::import_target(imp, r.path); !target.empty()) keys.insert(last_name(target));
        for (const auto& k : keys) importers_by_name[k].push_back(&r);
    }
    std::map<std::string, std::vector<std::pair<std::string, Query>>> by_importer;  // importer -> (defining file, query)
    for (const auto& [path, names] : functions_of) {
        const std::string module = python::module_of_path(path);
        const std::string package = python::parent_module(module);
        for (const std::string& key : {last_name(module), package.empty() ? std::string() : last_name(package)}) {
            const auto by = importers_by_name.find(key);
            if (key.empty() || by == importers_by_name.end()) continue;
            for (const program::FileRecord* r : by->second) {
                if (r->path == path || !model.same_project(r->path, path)) continue;
                auto& queries = by_importer[r->path];
                if (!queries.empty() && queries.back().first == path) continue;  // found under both names
                if (std::none_of(r->facts->imports.begin(), r->facts->imports.end(),
                                 [&](const ImportFact& imp) { return imports_module_or_package(imp, r->path, module); }))
                    continue;
                queries.emplace_back(path, Query{names, module, python::relative_base(r->path), false, {}});
            }
        }
    }
    std::vector<std::string> importer_paths;
    std::vector<std::vector<Query>> importer_queries;
    for (auto& [importer, queries] : by_importer) {
        if (queries.empty()) continue;
        importer_paths.push_back(importer);
        importer_queries.emplace_back();
        for (auto& q : queries) importer_queries.back().push_back(q.second);
    }
    const auto imported = run(importer_paths, importer_queries);
    for (std::size_t i = 0; i < importer_paths.size(); ++i) {
        const auto& queries = by_importer[importer_paths[i]];
        for (std::size_t k = 0; k < queries.size(); ++k) {
            const std::string& path = queries[k].first;
            if (!imported[i]) {  // gone: its uses are not known
                for (const auto& name : functions_of[path]) uses[{path, name}].unknown = true;
                continue;
            }
            const FunctionUses& u = (*imported[i])[k];
            for (const auto& c : u.calls) uses[{path, c.name}].calls.emplace_back(importer_paths[i], c);
            for (const auto& c : u.selections) uses[{path, c.name}].selections.emplace_back(importer_paths[i], c);
            for (const auto& name : u.other_uses) uses[{path, name}].unknown = true;
        }
    }
    // 2a. A config that names a function (`compute_cost: !name:pkg.losses.transducer_loss`, `_target_:
    // pkg.mod.fn`): whoever reads it builds or calls the function from there, under no guard this pass sees.
    std::multimap<std::string, const std::pair<const std::string, std::set<std::string>>*> defined_in;  // module -> (its file, its functions)
    for (const auto& entry : functions_of) defined_in.emplace(python::module_of_path(entry.first), &entry);
    for (const auto& r : records) {
        if (!r.facts || r.kind != FileKind::config) continue;
        for (const auto& imp : r.facts->imports)
            for (auto [it, end] = defined_in.equal_range(imp.module); it != end; ++it) {
                const auto& [path, names] = *it->second;
                if (!model.same_project(r.path, path)) continue;
                for (const auto& n : imp.names)
                    if (names.count(n)) uses[{path, n}].unknown = true;
            }
    }
    // 2b. Methods, by name: every file of the same project whose text writes `.name` or "name"
    // (FileFacts::attribute_names), each parsed once for all the names it may use.
    std::map<std::string, std::set<std::string>> wanted_in;  // calling file -> method names to find there
    std::vector<std::pair<std::string, std::string>> followed;  // (defining file, method)
    std::set<std::pair<std::string, std::string>> unnamed;      // (defining file, ".method") that no file writes
    for (const auto& [path, names] : methods_of) {
        for (const auto& name : names) {
            const auto callers = method_callers(records, model, path, name);
            if (!callers) {
                uses[{path, "." + name}].unknown = true;
                continue;
            }
            if (callers->empty()) unnamed.emplace(path, "." + name);
            followed.emplace_back(path, name);
            for (const auto* r : *callers) wanted_in[r->path].insert(name);
        }
    }
    if (!wanted_in.empty()) {
        std::vector<std::string> caller_paths;
        std::vector<std::vector<Query>> caller_queries;
        for (const auto& [caller, names] : wanted_in) {
            caller_paths.push_back(caller);
            caller_queries.push_back({Query{names, {}, {}, false, {}, true}});
        }
        const auto found = run(caller_paths, caller_queries);
        for (const auto& [path, name] : followed) {
            Calls& c = uses[{path, "." + name}];
            for (std::size_t i = 0; i < caller_paths.size(); ++i) {
                if (!wanted_in[caller_paths[i]].count(name) || !model.same_project(caller_paths[i], path)) continue;
                if (!found[i]) {  // gone: its uses are not known
                    c.unknown = true;
                    continue;
                }
                const FunctionUses& u = found[i]->front();
                for (const auto& call : u.calls)
                    if (call.name == name) c.calls.emplace_back(caller_paths[i], call);
                if (u.other_uses.count(name)) c.unknown = true;
            }
        }
    }
    // The function a finding runs in: its own, or the one whose import alone loads its module.
    struct RunsIn {
        std::string path;  // the defining file
        int line = 0;
        std::string function;  // ".method" for a method
        bool through_import = false;
    };
    auto runs_in = [&](const Finding& f) -> std::optional<RunsIn> {
        auto in = [&](const std::string& path, int line) -> std::optional<std::string> {
            const auto at = function_at.find(path);
            if (at == function_at.end()) return std::nullopt;
            const auto fn = at->second.find(line);
            if (fn == at->second.end() || fn->second.empty()) return std::nullopt;
            return fn->second;
        };
        if (auto fn = in(f.location.path, f.location.line)) return RunsIn{f.location.path, f.location.line, *fn, false};
        const auto loaded = loaded_at.find(&f);
        if (loaded == loaded_at.end()) return std::nullopt;
        if (auto fn = in(loaded->second.first, loaded->second.second); fn && (*fn)[0] != '.')
            return RunsIn{loaded->second.first, loaded->second.second, *fn, true};
        return std::nullopt;
    };
    // 3a. An arm is an alternative by its own text (python/guards.cpp from_alternative); the functions
    // it calls are seen only here. ermongroup/ddim picks its sampler in `if sample_type == "generalized":
    // xs = generalized_steps(...)` / `elif sample_type == "ddpm_noisy": xs = ddpm_steps(...)`, and both
    // hard-code 'cuda': neither arm is a way round the other. Where every other arm of a call's choice
    // calls a function that holds a finding of the same category, the call is not guarded by the choice.
    std::map<std::pair<std::string, std::string>, std::map<std::string, const Finding*>> holds;  // (file, function) -> category -> a finding
    for (const auto& f : findings) {
        if (!is_candidate(f, m_catalogue)) continue;
        if (const auto r = runs_in(f)) holds[{r->path, r->function}].emplace(f.category, &f);
    }
    struct HeldCall {
        int line;
        const std::map<std::string, const Finding*>* held;
        std::string name;
    };
    std::map<std::string, std::vector<HeldCall>> held_calls;  // calling file -> its calls of such functions
    for (const auto& [key, c] : uses)
        if (const auto h = holds.find(key); h != holds.end())
            for (const auto& [path, call] : c.calls) held_calls[path].push_back({call.line, &h->second, call.name});
    // The call's guard once the arms' calls are seen: none, with why, when every other arm calls such a
    // function; else the note of the first arm that does not.
    auto weigh_arms = [&](const std::string& path, FunctionUses::Call& call, const std::string& category) {
        if ((call.guard != GuardKind::alternative_branch && call.guard != GuardKind::default_arm) || call.arms.empty()) return;
        const auto calls = held_calls.find(path);
        if (calls == held_calls.end()) return;
        std::string why;
        for (const ArmSpan& arm : call.arms) {
            const auto hit = std::find_if(calls->second.begin(), calls->second.end(), [&](const HeldCall& h) {
                return h.line >= arm.first && h.line <= arm.last && h.held->count(category) > 0;
            });
            if (hit == calls->second.end()) {  // this arm is a way round
                call.note = call.guard == GuardKind::default_arm ? "the default takes the arm of this call; " + arm.note : arm.note;
                return;
            }
            const Finding* other = hit->held->at(category);
            if (why.empty())
                why = "the other arms need CUDA too: " + path + ":" + std::to_string(hit->line) + " calls " + hit->name + "(), which does (" +
                      other->location.path + ":" + std::to_string(other->location.line) + ")";
        }
        call.guard = GuardKind::none;
        call.note = why;
    };
    // 3. A finding whose function is called, only so, and only under guards, takes the weakest of them.
    std::vector<UnusedCandidate> never_called;  // in a module-level function that no file calls or names, or a class's method
    for (auto& f : findings) {
        if (!is_candidate(f, m_catalogue)) continue;
        const auto in = runs_in(f);
        if (!in) continue;
        const std::string& function = in->function;
        const auto it = uses.find({in->path, function});
        // only where a script or a command runs the code: without one, every file counts as core, and a
        // library's functions are its API, called by its users
        if (!in->through_import && model.has_training_entries() && model.reach_of(f.location.path).level > program::Level::tooling) {
            const FunctionUses& own_uses = *defined.at(f.location.path);
            // a method runs only where its class is built: by the class's name (ProPainter's
            // CUDAPrefetcher, written only in its own `class` line)
            const auto cls = own_uses.class_at.find(f.location.line);
            const std::string name = function[0] != '.' ? function : cls != own_uses.class_at.end() ? cls->second : std::string();
            const auto span = own_uses.spans.find(name);
            const bool unused = function[0] == '.' ||
                                it == uses.end() || (!it->second.unknown && it->second.calls.empty() && it->second.selections.empty());
            if (!name.empty() && span != own_uses.spans.end() && unused) never_called.push_back({&f, name, span->second, function[0] == '.'});
            // A method no Python file of the project writes, as `.name` or "name", outside comments
            // (FileFacts::attribute_names): nothing calls it, whoever builds its class (flownet2's
            // init_deconv_bilinear, its every call commented out; judged info in the sample of 2026-12-08),
            // unless a base of another file or package may (gpt-neox's lm-eval adapter overrides
            // `_loglikelihood_tokens`, which lm-eval's BaseLM calls; mmrotate's anchor generator
            // `single_level_grid_anchors`, which mmdet's calls: both read as never called in a suite run)
            if (function[0] == '.' && unnamed.count({in->path, function}) && cls != own_uses.class_at.end() &&
                !own_uses.foreign_based.count(cls->second)) {
                f.guard = GuardKind::never_called;
                f.guard_note = function.substr(1) + "() is called nowhere: no Python file of the repository writes `" + function + "` or \"" +
                               function.substr(1) + "\"";
                continue;
            }
        }
        if (it == uses.end() || it->second.unknown) continue;
        // Chosen in a branch (`return generate_stream_exllama`, `self.attn_fn = flash_attn_fn`): the
        // on-demand rule for packages reads such a choice as a call in that branch. Otherwise the
        // function runs only where the arm that chose it was taken, whoever calls what it was bound to
        // (PixArt-alpha's MPT attention: `if self.attn_impl == 'flash': self.attn_fn = flash_attn_fn`
        // beside a `torch` arm): one arm of a choice, as a call in that arm is.
        std::vector<std::pair<std::string, FunctionUses::Call>> chosen;
        if (!it->second.selections.empty()) {
            auto all = it->second.calls;
            all.insert(all.end(), it->second.selections.begin(), it->second.selections.end());
            if (on_demand_by_callers(f, function, all, model)) continue;
            chosen = it->second.calls;
            for (auto [path, s] : it->second.selections) {
                // A registered class that a shipped run config names is the one that config runs:
                // its registration is how the run calls it, with the guards the registration has.
                const auto named = s.branch.rfind(FunctionUses::kRegisteredBy, 0) == 0 ? config_naming(s.name) : nullptr;
                if (named) {
                    s.note = s.branch + ", and " + named->first + ":" + std::to_string(named->second) + " names " + s.name;
                } else {
                    s.guard = GuardKind::alternative_branch;
                    s.note = "chosen, not called, in `" + s.branch + "`";
                }
                chosen.emplace_back(path, std::move(s));
            }
        }
        auto calls = chosen.empty() ? it->second.calls : chosen;
        if (calls.empty()) continue;
        // Called only in the __main__ block of a module that the run imports and no command runs, a
        // smoke test at its foot (Open-Sora's `if __name__ == "__main__": test_chunked_interpolate()`):
        // the run never calls it.
        if (chosen.empty() && std::all_of(calls.begin(), calls.end(), [&](const auto& c) { return model.self_test_block(c.first, c.second.line).has_value(); })) {
            f.guard = GuardKind::never_called;
            f.guard_note = "every call of " + function + "() is " + *model.self_test_block(calls.front().first, calls.front().second.line);
            for (const auto& [path, c] : calls) f.related.push_back(related_line(path, c.line, "calls " + c.name + "() in a self-test"));
            continue;
        }
        for (auto& [path, c] : calls) {
            weigh_arms(path, c, f.category);
            // in a test that its skip decorator keeps off a Mac through a helper of the repository
            // (nanotron's `@pytest.mark.skipif(available_gpus() < 4)` around `init_distributed(...)(_test_x)`)
            if (guard_strength(c.guard) > guard_strength(GuardKind::test_skip))
                if (auto why = model.test_skip_at(path, c.line)) {
                    c.guard = GuardKind::test_skip;
                    c.note = *why;
                }
        }
        // A parameter's default (`def get_pc_sampler(..., device='cuda')`) that every call passes never
        // applies: by keyword, or by position (a method's calls skip self).
        if (const auto defaults = defaults_of.find(f.location.path); !in->through_import && defaults != defaults_of.end()) {
            const auto p = std::find_if(defaults->second.begin(), defaults->second.end(), [&](const FunctionUses::ParameterDefault& d) {
                const auto where = std::make_pair(f.location.line, f.location.col);
                return std::make_pair(d.line, d.col) <= where && where < std::make_pair(d.end_line, d.end_col);
            });
            if (p != defaults->second.end()) {
                const std::string& parameter = p->name;
                const int position = p->position;
                const int skipped = function[0] == '.' ? 1 : 0;
                // A call in a module's self-test `__main__` block is no call of the run (Fooocus' facexlib
                // face_utils.py calls init_detection_model() without a device only there).
                const auto self_test = [&](const auto& c) { return model.self_test_block(c.first, c.second.line).has_value(); };
                const bool passed = std::any_of(calls.begin(), calls.end(), [&](const auto& c) { return !self_test(c); }) &&
                                    std::all_of(calls.begin(), calls.end(), [&](const auto& c) {
                                        if (self_test(c)) return true;
                                        const auto& k = c.second.keywords;
                                        if (std::find(k.begin(), k.end(), parameter) != k.end()) return true;
                                        return !c.second.spread && position >= 0 && c.second.positional + skipped > position;
                                    });
                if (passed) {
                    const auto first = std::find_if(calls.begin(), calls.end(), [&](const auto& c) { return !self_test(c); });
                    f.guard = GuardKind::default_unused;
                    f.guard_note = "every call of " + function + "() passes " + parameter + " (" + first->first + ":" +
                                   std::to_string(first->second.line) + ")";
                    for (const auto& c : calls)
                        if (!self_test(c)) f.related.push_back(related_line(c.first, c.second.line, "calls " + c.second.name + "() with " + parameter));
                    continue;
                }
            }
        }
        const auto def = defined.find(in->path);
        const bool api_function = !in->through_import && function[0] != '.' && def != defined.end() && !def->second->classes.count(function);
        if (chosen.empty() && on_demand_by_callers(f, function, calls, model, api_function)) continue;
        // For code the run reaches, the calls outside tests, benchmarks and examples decide where there
        // are some: a benchmark that calls the function unguarded (accelerate's benchmarks/fp8 scripts
        // calling convert_model()) says nothing of when the training run does. A program of the
        // repository's own (an evaluation or export script) still counts: a lab runs it on the Mac too.
        if (model.has_training_entries() && model.reach_of(f.location.path).level > program::Level::tooling) {
            std::vector<std::pair<std::string, FunctionUses::Call>> run_calls;
            std::copy_if(calls.begin(), calls.end(), std::back_inserter(run_calls), [&](const auto& c) { return !model.is_tooling_path(c.first); });
            if (!run_calls.empty()) calls = std::move(run_calls);
        }
        if (std::any_of(calls.begin(), calls.end(), [](const auto& c) { return c.second.guard == GuardKind::none; })) continue;
        // the weakest: the one that leaves the most of the path (a fallback beside it over a path a Mac never takes)
        const auto weakest = std::max_element(calls.begin(), calls.end(), [](const auto& a, const auto& b) {
            return guard_strength(a.second.guard) < guard_strength(b.second.guard);
        });
        if (f.guard != GuardKind::none && guard_strength(weakest->second.guard) >= guard_strength(f.guard)) continue;
        f.guard = weakest->second.guard;
        f.guard_note = (in->through_import ? "loaded only by the import in " + function + "() (" + in->path + ":" + std::to_string(in->line) + "); " : std::string()) +
                       "every call of " + function + "() is guarded; " + weakest->first + ":" + std::to_string(weakest->second.line) + ": " +
                       weakest->second.note;
        for (const auto& [path, c] : calls)
            f.related.push_back(related_line(path, c.line, c.note.rfind("chosen", 0) == 0 ? c.name + "() " + c.note
                                                                                         : "calls " + c.name + "() (" + std::string(to_string(c.guard)) + " guard)"));
    }
    mark_never_called(records, model, base, never_called);
}

// 4. A module-level function of the training run's files that no file calls, imports or names is dead
// code: sam2's init_distributed_data_parallel_model(), mamba's _chunk_scan_bwd_ddAcs_stable_old(). The
// parses above saw no call or other use in its own file and its importers; the name must also be
// written nowhere else, as a whole word: not in another file of the project (a notebook, a Hydra
// config's `_target_`, a console script's `pkg.cli:main`, the README documenting an API) and not in
// its own file outside its definition (`__all__`, getattr(module, "name")). A Python comment is no
// use: RAFT's create_kitti_submission(), whose one call is commented out (`# create_kitti_submission(model)`),
// is dead, as a judged sample read it (and mamba's benchmark_bwd_ddt() before it). Nor is an import
// that only re-exports the name (smplx's `from .timer import Timer, timer_decorator` in its package's
// __init__.py, used by no file): an import under another name (`import x as y`) is one, since the
// new name may be used. Other files' text (a README documenting an API, a config) still counts.
// The same holds for a module-level class and its methods: a class written nowhere outside its own
// body (`super(Timer, self)`) is never built (ProPainter's CUDAPrefetcher, smplx's Timer).
void Scanner::mark_never_called(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const fs::path& base,
                                const std::vector<UnusedCandidate>& candidates) const {
    if (candidates.empty()) return;
    std::vector<std::string> names;
    std::map<std::string, std::size_t> index;  // name -> its place in `names`
    for (const auto& c : candidates)
        if (index.emplace(c.name, names.size()).second) names.push_back(c.name);
    const TriggerSet words(names);
    std::vector<const program::FileRecord*> texts;
    for (const auto& r : records)
        if (r.kind != FileKind::checkpoint && r.kind != FileKind::cuda && r.kind != FileKind::cpp &&
            std::any_of(candidates.begin(), candidates.end(), [&](const UnusedCandidate& c) { return model.same_project(r.path, c.finding->location.path); }))
            texts.push_back(&r);
    // per file: each name it writes as a use (not in a comment, not an import that only binds it), and
    // the line it writes it on
    struct Use {
        std::uint32_t name;
        int line;
    };
    std::vector<std::vector<Use>> uses_in(texts.size());
    // the names each Python file defines itself (`def NAME`, `class NAME`): there, they are its own
    std::vector<std::set<std::uint32_t>> defines(texts.size());
    // A Python file reaches a module-level function of another only through an import of that file,
    // direct or through others (`from pkg import f` where pkg/__init__.py re-exports it), or by writing
    // the module's name (an import the model did not resolve): GPT-SoVITS's export_torch_script.py
    // test(), whose one call is commented out, beside the word `test` in a dozen files that never import
    // it. Other texts (a README, a config, a shell script) count where they write it as a use (below).
    std::map<std::string, std::uint32_t> stem_of;  // candidate's file -> its module name's place in `stems`
    std::vector<std::string> stems;
    std::set<std::string> candidate_files;
    for (const auto& c : candidates) {
        const std::string& path = c.finding->location.path;
        if (!candidate_files.insert(path).second) continue;
        std::string stem = fs::path(path).stem().string();
        if (stem == "__init__") stem = fs::path(path).parent_path().filename().string();
        const auto at = std::find(stems.begin(), stems.end(), stem);
        stem_of.emplace(path, static_cast<std::uint32_t>(at - stems.begin()));
        if (at == stems.end()) stems.push_back(std::move(stem));
    }
    const TriggerSet stem_words(stems);
    const std::map<std::string, std::set<std::string>> importers = model.importers_of(candidate_files);  // -> files importing it
    std::vector<std::set<std::uint32_t>> writes_stem(texts.size());  // the candidates' module names each file writes
    // an import that names it, or one that takes a module's every name (`from helpers import *`, of a
    // module the model may not have found)
    std::vector<char> star_import(texts.size(), 0);
    std::vector<char> class_name(names.size(), 0);  // a class's name (its methods' findings), not a function's
    for (const auto& c : candidates)
        if (c.method) class_name[index.at(c.name)] = 1;
    const auto may_import_name = [&](std::size_t i, const std::string& name) {
        const auto& imports = texts[i]->facts ? texts[i]->facts->imports : std::vector<ImportFact>();
        return star_import[i] || std::any_of(imports.begin(), imports.end(), [&](const ImportFact& imp) {
                   return std::find(imp.names.begin(), imp.names.end(), name) != imp.names.end();
               });
    };
    std::vector<bool> unreadable(texts.size(), false);
    parallel_for(texts.size(), [&](std::size_t i) {
        std::string text;
        try {
            text = read_file(base / texts[i]->path);
        } catch (const std::exception&) {
            unreadable[i] = true;  // unreadable now: it may name any of them
            return;
        }
        const bool python = texts[i]->kind == FileKind::python;
        star_import[i] = python && text.find(" import *") != std::string::npos;
        if (python)
            for (const auto& [at, k] : stem_words.find_each(text)) {
                const std::size_t end = at + stems[k].size();
                if ((at == 0 || !is_word_char(text[at - 1])) && (end >= text.size() || !is_word_char(text[end]))) writes_stem[i].insert(k);
            }
        std::vector<std::pair<int, int>> imports;  // the import statements' lines
        if (python && texts[i]->facts)
            for (const auto& imp : texts[i]->facts->imports)
                if (!imp.in_string) imports.emplace_back(imp.line, std::max(imp.line, imp.end_line));
        std::size_t counted = 0;  // newlines before `counted`, in `line`
        int line = 1;
        for (const auto& [at, k] : words.find_each(text)) {
            const std::size_t end = at + names[k].size();
            if ((at > 0 && is_word_char(text[at - 1])) || (end < text.size() && is_word_char(text[end]))) continue;
            if (python && in_python_comment(text, at)) continue;
            // In another text, a use is written as one: called (`test(`), or named by its module
            // (`pkg.mod.test`, a config target; `mod:test`, an entry point). Prose that has the word
            // (GPT-SoVITS's documents, full of "test") names no function.
            // (A class keeps any mention: a registry's config names it bare, `type: ResNet`.)
            if (!python && !class_name[k] && !(end < text.size() && text[end] == '(') && !(at > 0 && (text[at - 1] == '.' || text[at - 1] == ':')))
                continue;
            if (at < counted) counted = 0, line = 1;
            line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
            counted = at;
            if (python) {
                const std::size_t name_at = at;  // a structured binding: C++17 lambdas cannot capture it
                const std::size_t word = text.find_last_not_of(" \t", name_at == 0 ? 0 : name_at - 1);
                const auto keyword = [&](std::string_view kw) {
                    return word != std::string::npos && word + 1 >= kw.size() && text.compare(word + 1 - kw.size(), kw.size(), kw) == 0 &&
                           (word + 1 == kw.size() || !is_word_char(text[word - kw.size()])) && word + 1 < name_at;
                };
                if (keyword("def") || keyword("class")) defines[i].insert(k);
            }
            const bool in_import = std::any_of(imports.begin(), imports.end(), [&](const auto& s) { return s.first <= line && line <= s.second; });
            if (in_import) {
                const std::size_t next = text.find_first_not_of(" \t", end);
                if (next == std::string::npos || text.compare(next, 3, "as ") != 0) continue;  // binds it under its own name
            }
            uses_in[i].push_back({k, line});
        }
    });
    for (const auto& c : candidates) {
        const std::uint32_t k = static_cast<std::uint32_t>(index.at(c.name));
        bool used = false;
        for (std::size_t i = 0; i < texts.size() && !used; ++i) {
            if (!model.same_project(texts[i]->path, c.finding->location.path)) continue;
            if (unreadable[i]) {
                used = true;
                break;
            }
            const bool own = texts[i]->path == c.finding->location.path;
            // Another script that defines a function of the same name (Oscar's run_vqa.py and
            // run_gqa.py each have their own load_and_cache_examples) calls its own, unless it
            // imports this file.
            if (!own && defines[i].count(k) && !model.imports_file(texts[i]->path, c.finding->location.path)) continue;
            if (!own && !c.method && texts[i]->kind == FileKind::python && !importers.at(c.finding->location.path).count(texts[i]->path) &&
                !writes_stem[i].count(stem_of.at(c.finding->location.path)) && !may_import_name(i, c.name))
                continue;
            used = std::any_of(uses_in[i].begin(), uses_in[i].end(), [&](const Use& u) {
                return u.name == k && !(own && c.span.first <= u.line && u.line <= c.span.second);
            });
        }
        if (used) continue;
        Finding* f = c.finding;
        f->guard = GuardKind::never_called;
        f->guard_note = c.method ? "class " + c.name + " is built nowhere: no file of the repository calls, imports or names it"
                               : c.name + "() is called nowhere: no file of the repository calls, imports or names it";
    }
}

}  // namespace mpsport
