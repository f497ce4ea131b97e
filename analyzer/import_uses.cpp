// Which programs use a stay-on-CUDA import. facebookresearch/ConvNeXt-V2's models/utils.py imports
// MinkowskiEngine on load for its sparse layers; main_finetune.py reaches the file only through
// models/convnextv2.py's `from .utils import LayerNorm, GRN`, which use none of it, while
// main_pretrain.py's sparse model needs it. The fine-tuning program runs once the import is moved:
// the blocker is the pre-training program's (rules/program.yaml other_program), not the repository's.
// The file is parsed whole here (the scan parsed only the statements that could match), and only
// where the repository has two or more programs, one of them reaches the file, and the import is
// unguarded on load.
#include <algorithm>
#include <set>

#include "analyzer/program/program_model.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scanner.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace mpsport {

void Scanner::read_import_uses(const fs::path& base, const std::vector<Finding>& findings, program::ProgramModel& model) const {
    if (!m_catalogue.program().other_program || !model.has_programs()) return;
    std::set<std::pair<std::string, int>> wanted;
    for (const auto& f : findings) {
        const std::string& path = f.location.path;
        if (f.category != "dependency" || f.impact != VerdictImpact::stay || f.guard != GuardKind::none || path.size() < 3 ||
            path.compare(path.size() - 3, 3, ".py") != 0)
            continue;
        if (!model.imports_on_load(path, f.location.line) || (!f.subject.empty() && model.is_own_package(f.subject, path))) continue;
        // A file no program reaches (a test, a kernel module only a benchmark imports): its use of the
        // import cannot change which program runs without it, and its whole-file parse is skipped.
        if (!model.any_program_reaches(path)) continue;
        wanted.emplace(path, f.location.line);
    }
    if (wanted.empty()) return;
    build_engines();
    const std::vector<std::pair<std::string, int>> sites(wanted.begin(), wanted.end());
    std::vector<ImportUse> uses(sites.size());
    parallel_for(sites.size(), [&](std::size_t i) {
        try {
            uses[i] = m_python->import_use(read_file(base / sites[i].first), sites[i].second);
        } catch (const std::exception&) {
            // gone or unreadable since the scan read it: its import counts as used, as before
        }
    });
    for (std::size_t i = 0; i < sites.size(); ++i) model.set_import_use(sites[i].first, sites[i].second, std::move(uses[i]));
}

}  // namespace mpsport
