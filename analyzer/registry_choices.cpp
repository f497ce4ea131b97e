// A choice of a registry. autonomousvision/occupancy_networks' train.py loads im2mesh/config.py, which
// does `from im2mesh import onet, r2n2, psgn, pix2mesh, dmc` only to fill `method_dict = {'onet': onet,
// ..., 'dmc': dmc}`, and the run's config names the method it takes. Only dmc needs a CUDA extension:
// the run needs it because the import is unconditional, not because every run uses it, and dropping or
// guarding that import is the port of the other methods. So a stay-on-CUDA finding in core whose import
// chain passes through such a name (python registry_choices: held only as a value of a module-level
// dictionary with string keys and at least three entries) weighs rules/program.yaml registry_choice
// (dual-track at most), and names the registry. The importing files are parsed here, whole, and only
// those on such a finding's chain.
#include <map>
#include <set>

#include "analyzer/program/program_model.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scanner.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {

void Scanner::weigh_registry_choices(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const fs::path& base,
                                     std::vector<Finding>& findings) const {
    const auto& weight = m_catalogue.program().registry_choice;
    if (!weight) return;
    std::map<std::string, const program::FileRecord*> by_path;
    for (const auto& r : records) by_path.emplace(r.path, &r);
    // Each finding's steps that import the next file of its chain by a name: (file, line, name).
    struct Step {
        std::string file;
        int line;
        std::string name;
    };
    std::vector<std::pair<Finding*, std::vector<Step>>> candidates;
    std::set<std::string> importers;
    for (auto& f : findings) {
        if (f.impact != VerdictImpact::stay || f.reach != Reach::core || f.chain.size() < 2) continue;
        std::vector<Step> steps;
        for (std::size_t i = 0; i + 1 < f.chain.size(); ++i) {
            const auto [file, line] = program::split_chain_step(f.chain[i]);
            // the name the next file goes by in an import: the last part of its module ("im2mesh.dmc": dmc)
            const std::string module = model.module_name_of(program::split_chain_step(f.chain[i + 1]).first);
            const std::string next = module.substr(module.rfind('.') == std::string::npos ? 0 : module.rfind('.') + 1);
            const auto rec = by_path.find(file);
            if (line == 0 || next.empty() || rec == by_path.end() || !rec->second->facts) continue;
            for (const auto& imp : rec->second->facts->imports) {
                if (imp.line != line || imp.guard != GuardKind::none || imp.lazy) continue;
                if (std::find(imp.names.begin(), imp.names.end(), next) != imp.names.end()) steps.push_back({file, line, next});
                break;
            }
        }
        if (steps.empty()) continue;
        for (const auto& s : steps) importers.insert(s.file);
        candidates.emplace_back(&f, std::move(steps));
    }
    if (candidates.empty()) return;
    build_engines();
    const std::vector<std::string> files(importers.begin(), importers.end());
    std::vector<std::map<std::string, RegistryChoice>> held(files.size());
    parallel_for(files.size(), [&](std::size_t i) {
        try {
            held[i] = m_python->registry_choices(read_file(base / files[i]));
        } catch (const std::exception&) {
            // gone or unreadable since the scan read it: no registry to show
        }
    });
    std::map<std::string, const std::map<std::string, RegistryChoice>*> held_in;
    for (std::size_t i = 0; i < files.size(); ++i) held_in.emplace(files[i], &held[i]);
    for (auto& [fp, steps] : candidates) {
        Finding& f = *fp;
        for (const Step& s : steps) {
            const auto& choices = *held_in.at(s.file);
            const auto choice = choices.find(s.name);
            if (choice == choices.end()) continue;
            const RegistryChoice& c = choice->second;
            if (weight->impact_cap) f.impact = std::min(f.impact, *weight->impact_cap);
            if (weight->max_severity) f.severity = std::min(f.severity, *weight->max_severity);
            f.note += std::string(f.note.empty() ? "" : "; ") + weight->why + ": " + s.file + ":" + std::to_string(s.line) + " imports " + s.name +
                      " only for " + c.registry + " (line " + std::to_string(c.line) + ", one of " + std::to_string(c.entries) +
                      " entries); drop or guard that import on a Mac";
            f.related.push_back(related_line(s.file, c.line, s.name + ", one entry of " + c.registry));
            break;
        }
    }
}

}  // namespace mpsport
