// A twin of what the run imports. lucidrains/PaLM-pytorch's train.py does `from palm_pytorch.triton
// import PaLM`, a model whose kernels need Triton; palm_pytorch/palm_pytorch.py defines a class PaLM of
// its own that loads without any CUDA-only package. The run needs Triton only as written: importing the
// other PaLM is the port. So a stay-on-CUDA import in core, reached through an entry's `from M import
// N, ...` where every name N is defined at the top of another module of the repository (`class N` or
// `def N` at the start of a line) that imports nothing CUDA-only on load, weighs rules/program.yaml
// twin_definition (dual-track at most), and names the twin. The twin lies under the same top folder as
// the module the entry imports, and that module does not load it itself. Only the first step of the
// chain (the entry's own import) is looked at: that is the edit a lab would make.
#include <algorithm>
#include <map>
#include <set>

#include "analyzer/program/program_model.hpp"
#include "analyzer/python/regions.hpp"
#include "analyzer/scanner.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"
#include "core/trigger_set.hpp"

namespace fs = std::filesystem;

namespace mpsport {

void Scanner::weigh_twin_definitions(const std::vector<program::FileRecord>& records, const program::ProgramModel& model, const fs::path& base,
                                     std::vector<Finding>& findings) const {
    const auto& weight = m_catalogue.program().twin_definition;
    if (!weight) return;
    std::map<std::string, const program::FileRecord*> by_path;
    for (const auto& r : records) by_path.emplace(r.path, &r);
    // The candidates and the names their entry imports.
    struct Candidate {
        Finding* finding;
        std::string entry;
        int line;
        std::vector<std::string> names;
    };
    std::vector<Candidate> candidates;
    std::map<std::string, std::string> seeds;  // files that need a CUDA-only package to load
    for (auto& f : findings) {
        const std::string& path = f.location.path;
        if (f.category != "dependency" || f.impact != VerdictImpact::stay || path.size() < 3 || path.compare(path.size() - 3, 3, ".py") != 0) continue;
        if (model.imports_on_load(f.location.path, f.location.line))
            seeds.emplace(f.location.path, f.subject + " (" + f.location.path + ":" + std::to_string(f.location.line) + ")");
        if (f.reach != Reach::core || f.chain.size() < 2) continue;
        const auto [entry, line] = program::split_chain_step(f.chain.front());
        const auto rec = by_path.find(entry);
        if (line == 0 || rec == by_path.end() || !rec->second->facts) continue;
        for (const auto& imp : rec->second->facts->imports)
            if (imp.line == line && !imp.names.empty() && imp.guard == GuardKind::none) {
                candidates.push_back({&f, entry, line, imp.names});
                break;
            }
    }
    if (candidates.empty()) return;
    seeds.merge(model.cuda_extension_importers());  // and the own compiled modules that only build with CUDA
    const auto cuda_bound = model.importing_on_load(seeds);
    // Where each name is defined at the top of a module: one pass over the project's Python files.
    std::vector<std::string> names;
    for (const auto& c : candidates)
        for (const auto& n : c.names)
            if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    std::vector<std::string> literals;
    for (const auto& n : names) {
        literals.push_back("\nclass " + n + "(");
        literals.push_back("\nclass " + n + ":");
        literals.push_back("\ndef " + n + "(");
    }
    const TriggerSet defs(literals);
    std::vector<const program::FileRecord*> files;
    for (const auto& r : records)
        if (r.kind == FileKind::python && !model.is_tooling_path(r.path) && !cuda_bound.count(r.path) &&
            std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) { return model.same_project(r.path, c.entry); }))
            files.push_back(&r);
    std::vector<std::map<std::size_t, int>> defined(files.size());  // per file: index into names -> line of its definition
    parallel_for(files.size(), [&](std::size_t i) {
        std::string text;
        try {
            text = "\n" + read_file(base / files[i]->path);
        } catch (const std::exception&) {
            return;  // gone since the scan read it: it defines nothing we can show
        }
        for (const auto& [at, k] : defs.find_each(text))
            defined[i].emplace(k / 3, static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at) + 1, '\n')));
    });
    for (const auto& c : candidates) {
        Finding& f = *c.finding;
        // Not a module that the imported one loads from its own folder (a package's __init__.py
        // re-exporting its builder.py: the same object), nor one of another sub-project (RWKV-v4neo/
        // beside RWKV-v5/): under the same top folder as the module the entry imports.
        const std::string imported = program::split_chain_step(f.chain[1]).first;
        const std::string folder = imported.find('/') == std::string::npos ? std::string() : imported.substr(0, imported.rfind('/') + 1);
        std::set<std::string> on_chain;
        for (const auto& p : model.imported_from(imported))
            if (p.compare(0, folder.size(), folder) == 0) on_chain.insert(p);  // not its parent package's own imports
        for (const auto& step : f.chain) on_chain.insert(program::split_chain_step(step).first);
        const auto top = [](const std::string& p) { return p.find('/') == std::string::npos ? std::string() : p.substr(0, p.find('/')); };
        std::string twin;
        int twin_line = 0;
        bool all = true;
        for (const auto& n : c.names) {
            const std::size_t k = std::find(names.begin(), names.end(), n) - names.begin();
            std::string found;
            int found_line = 0;
            for (std::size_t i = 0; i < files.size() && found.empty(); ++i)
                if (const auto d = defined[i].find(k);
                    d != defined[i].end() && !on_chain.count(files[i]->path) && top(files[i]->path) == top(imported) && model.same_project(files[i]->path, c.entry)) {
                    found = files[i]->path;
                    found_line = d->second;
                }
            if (found.empty()) {
                all = false;
                break;
            }
            if (twin.empty()) twin = found, twin_line = found_line;
        }
        if (!all) continue;
        if (weight->impact_cap) f.impact = std::min(f.impact, *weight->impact_cap);
        if (weight->max_severity) f.severity = std::min(f.severity, *weight->max_severity);
        std::string names_list;
        for (const auto& n : c.names) names_list += (names_list.empty() ? "" : ", ") + n;
        f.note += std::string(f.note.empty() ? "" : "; ") + weight->why + ": " + c.entry + ":" + std::to_string(c.line) + " imports " + names_list +
                  " from a module that needs the package, and " + twin + " defines " + (c.names.size() == 1 ? "it" : "them") +
                  " too, with nothing CUDA-only on load";
        f.related.push_back(related_line(twin, twin_line, "defines " + names_list + " too"));
    }
}

namespace {

// The words a name starts with that it shares with another, as text ("ms_deform_attn" for
// ms_deform_attn_core_pytorch and ms_deform_attn_forward); whole words only.
std::string shared_words(const std::string& a, const std::string& b) {
    std::size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
    if (n == a.size() && n == b.size()) return a;
    if (!((n == a.size() || a[n] == '_') && (n == b.size() || b[n] == '_'))) {  // back to the last word boundary
        const std::size_t cut = a.rfind('_', n == 0 ? 0 : n - 1);
        n = cut == std::string::npos || cut >= n ? 0 : cut;
    }
    return a.substr(0, n);
}

}  // namespace

// A PyTorch twin of a kernel. fundamentalvision/Deformable-DETR's ms_deform_attn_func.py calls the
// extension's ms_deform_attn_forward, CUDA alone, and defines ms_deform_attn_core_pytorch at its top,
// the same op built on F.grid_sample; OpenGVLab/InternImage's dcnv3_func.py and dcnv3_core_pytorch are
// the same. Calling the twin is the port: a stay-on-CUDA op finding in core whose every Python caller
// module (the calls the extension's links found, and the last step of its chain) defines, at the start
// of a line, `def NAME(` or `class NAME` where NAME ends with one of rules/program.yaml kernel_twin's
// suffixes and starts with the op's first words (four characters at least) weighs kernel_twin, and
// names the twin.
void Scanner::weigh_kernel_twins(const fs::path& base, std::vector<Finding>& findings) const {
    const auto& vocab = m_catalogue.program();
    if (!vocab.kernel_twin || vocab.kernel_twin_suffixes.empty()) return;
    const auto is_py = [](const std::string& p) { return p.size() > 3 && p.compare(p.size() - 3, 3, ".py") == 0; };
    // finding, and its (Python caller, op) pairs
    std::vector<std::pair<Finding*, std::set<std::pair<std::string, std::string>>>> candidates;
    for (auto& f : findings) {
        if (f.category != "extension" || f.impact != VerdictImpact::stay || f.reach != Reach::core) continue;
        std::set<std::pair<std::string, std::string>> calls;
        if (!f.native_op.empty()) {
            const std::string op = f.native_op.substr(f.native_op.rfind(':') == std::string::npos ? 0 : f.native_op.rfind(':') + 1);
            for (const auto& r : f.related)
                if (r.label.rfind("calls ", 0) == 0 && is_py(r.location.path)) calls.emplace(r.location.path, op);
            if (!f.chain.empty())
                if (const std::string last = program::split_chain_step(f.chain.back()).first; is_py(last)) calls.emplace(last, op);
        } else {
            // the extension's build: the ops its import sites call (`calls MultiScaleDeformableAttention.ms_deform_attn_forward`).
            // When each has a twin, the build is as optional as they are (Deformable-DETR's ops/setup.py).
            for (const auto& r : f.related)
                if (r.label.rfind("calls ", 0) == 0 && is_py(r.location.path))
                    calls.emplace(r.location.path, r.label.substr(r.label.rfind('.') == std::string::npos ? 6 : r.label.rfind('.') + 1));
        }
        if (!calls.empty()) candidates.emplace_back(&f, std::move(calls));
    }
    if (candidates.empty()) return;
    // The names each caller module defines at its top with a twin's suffix, and their lines.
    std::map<std::string, std::vector<std::pair<std::string, int>>> twins_in;
    for (const auto& c : candidates)
        for (const auto& call : c.second) twins_in.emplace(call.first, std::vector<std::pair<std::string, int>>());
    for (auto& [path, twins] : twins_in) {
        std::string text;
        try {
            text = read_file(base / path);
        } catch (const std::exception&) {
            continue;  // gone since the scan read it: no twin to show
        }
        // the file's top-level statements (regions.cpp's splitter): a def or class at the start of one
        for (const python::Chunk& c : python::top_level_chunks(text)) {
            const std::string_view statement(text.data() + c.begin, c.end - c.begin);
            for (const std::string_view kw : {std::string_view("def "), std::string_view("class ")}) {
                if (statement.substr(0, kw.size()) != kw) continue;
                std::size_t n = kw.size();
                while (n < statement.size() && is_word_char(statement[n])) ++n;
                const std::string name(statement.substr(kw.size(), n - kw.size()));
                for (const auto& suffix : vocab.kernel_twin_suffixes)
                    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
                        twins.emplace_back(name, static_cast<int>(c.row) + 1);
            }
        }
    }
    const WeightRule& weight = *vocab.kernel_twin;
    for (auto& [fp, calls] : candidates) {
        Finding& f = *fp;
        std::vector<std::tuple<std::string, std::string, std::pair<std::string, int>>> found;  // caller, op, its twin
        for (const auto& [path, op] : calls) {
            const auto& twins = twins_in.at(path);
            const auto t = std::find_if(twins.begin(), twins.end(), [&, &op = op](const auto& tw) { return shared_words(tw.first, op).size() >= 4; });
            if (t == twins.end()) break;
            found.emplace_back(path, op, *t);
        }
        if (found.size() != calls.size()) continue;
        if (weight.impact_cap) f.impact = std::min(f.impact, *weight.impact_cap);
        if (weight.max_severity) f.severity = std::min(f.severity, *weight.max_severity);
        const auto& [path, op, twin] = found.front();
        f.note += std::string(f.note.empty() ? "" : "; ") + weight.why + ": " + path + ", which calls " + op + ", defines " + twin.first + " (line " +
                  std::to_string(twin.second) + "): call it instead on a Mac";
        for (const auto& [p, o, t] : found)
            if (std::none_of(f.related.begin(), f.related.end(), [&, &p = p, &t = t](const RelatedLocation& r) {
                    return r.location.path == p && r.location.line == t.second;
                }))
                f.related.push_back(related_line(p, t.second, "defines " + t.first + ", " + o + " in PyTorch"));
    }
}

}  // namespace mpsport
