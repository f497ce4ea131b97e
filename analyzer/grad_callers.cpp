// The cross-file half of "do gradients flow through this backward-only fallback?". The per-file half
// (analyzer/python/grad_context.cpp) decides what a file shows; a fallback inside a module-level function
// whose callers in its own file do not decide (detectron2's resample_data, called under torch.no_grad()
// from losses/segm.py) is decided by its uses in the files that import it: one where gradients flow
// keeps the finding, all without gradients make it info. A method of a module-level class is decided the
// same way by its calls through any object (`warper.resample(x)` under torch.no_grad()), in the files that
// write its name. Such findings are few, so those files are parsed again, whole, here.
#include <algorithm>
#include <map>
#include <set>

#include "analyzer/method_callers.hpp"
#include "analyzer/program/program_model.hpp"
#include "analyzer/python/grad_context.hpp"
#include "analyzer/python/module_names.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scanner.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

// Does `imp` in `importer` take one of `names` from the module at `defined_in` (or from its package,
// which re-exports it: `from detectron2.layers import paste_masks_in_image`)?
bool imports_from(const ImportFact& imp, const std::string& importer, const std::string& defined_in, const std::vector<std::string>& names) {
    if (std::none_of(imp.names.begin(), imp.names.end(), [&](const std::string& n) { return std::count(names.begin(), names.end(), n) > 0; }))
        return false;
    const std::string module = python::module_of_path(defined_in), package = python::parent_module(module);
    const std::string target = python::import_target(imp, importer);
    if (imp.level > 0) return target == module || target == package;
    return python::names_module(module, target) || python::names_module(package, target);
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos <= s.size();) {
        std::size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        if (comma > pos) out.push_back(s.substr(pos, comma - pos));
        pos = comma + 1;
    }
    return out;
}

}  // namespace

void Scanner::weigh_backward_only_by_callers(const std::vector<program::FileRecord>& records, const program::ProgramModel& model,
                                             const fs::path& base, std::vector<Finding>& findings) const {
    for (auto& f : findings) {
        if (f.guard != GuardKind::grad_unknown || f.subject.empty() || f.category != "op-support") continue;
        // Functions (by the files that import them) and methods (".name": by the files that write the
        // name; the defining file's own `self.name()` calls were followed already, as a function's are).
        std::vector<std::string> functions, methods;
        for (auto& n : split_commas(f.subject)) (n[0] == '.' ? methods : functions).push_back(n[0] == '.' ? n.substr(1) : n);
        std::map<std::string, std::set<std::string, std::less<>>> wanted_in;  // file -> the names to find there
        bool unknown = false;
        for (const auto& r : records) {
            if (functions.empty() || !r.facts || r.path == f.location.path || r.kind != FileKind::python) continue;
            if (std::any_of(r.facts->imports.begin(), r.facts->imports.end(),
                            [&](const ImportFact& imp) { return imports_from(imp, r.path, f.location.path, functions); }))
                wanted_in[r.path].insert(functions.begin(), functions.end());
        }
        for (const auto& m : methods) {
            const auto callers = method_callers(records, model, f.location.path, m);
            unknown = unknown || !callers;
            for (const auto* r : callers ? *callers : std::vector<const program::FileRecord*>{})
                if (r->path != f.location.path) wanted_in[r->path].insert(m);
        }
        if (unknown) continue;  // a notebook or too many files write a method's name: nothing decides
        std::vector<std::pair<std::string, python::PythonEngine::CallGrad>> calls;
        for (const auto& [path, wanted] : wanted_in) {
            build_engines();
            try {
                for (auto& c : m_python->gradients_at_calls(read_file(base / path), wanted)) calls.emplace_back(path, std::move(c));
            } catch (const std::exception&) {
                // read a moment ago: if it is gone now, its calls are not known
            }
        }
        const auto training = std::find_if(calls.begin(), calls.end(), [](const auto& c) { return c.second.grad == static_cast<int>(python::Grad::training); });
        const bool all_none = !calls.empty() && std::all_of(calls.begin(), calls.end(), [](const auto& c) { return c.second.grad == static_cast<int>(python::Grad::none); });
        if (training != calls.end()) {
            f.guard = GuardKind::none;
            f.guard_note.clear();
            f.related.push_back(related_line(training->first, training->second.line,
                                          "uses " + training->second.name + "() where gradients flow (" + training->second.why + ")"));
        } else if (all_none) {
            const auto& first = calls.front();
            f.guard = GuardKind::no_grad;
            f.guard_note = "every use of " + f.subject + "() runs without gradients (" + first.first + ":" + std::to_string(first.second.line) +
                           ": " + first.second.why + ")";
            for (const auto& [path, c] : calls) f.related.push_back(related_line(path, c.line, "uses " + c.name + "() without gradients (" + c.why + ")"));
        } else {
            for (const auto& [path, c] : calls)
                if (c.grad == static_cast<int>(python::Grad::unknown))
                    f.related.push_back(related_line(path, c.line, "uses " + c.name + "(); nothing there says whether gradients flow"));
        }
    }
}

}  // namespace mpsport
