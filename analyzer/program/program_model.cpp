#include "analyzer/program/program_model.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <functional>
#include <fnmatch.h>
#include <strings.h>

#include "analyzer/python/module_names.hpp"
#include "core/paths.hpp"

namespace mpsport::program {
namespace {

std::string dir_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// How an entry that is a package's API, not a script, says why it is one.
constexpr const char* kPackageApi = "package API";
constexpr std::string_view kHeaderExtensions[] = {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl"};

// The last part of a repository path: "setup.py" for "csrc/setup.py".
std::string base_name(const std::string& path) { return path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1); }

std::string join(const std::string& dir, const std::string& rel) { return dir.empty() ? rel : dir + "/" + rel; }

std::string dotted_to_path(const std::string& dotted) {
    std::string p = dotted;
    std::replace(p.begin(), p.end(), '.', '/');
    return p;
}


bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A guard's strength is the reach level it leaves (core 3, optional_fallback 2, optional_dead 1).
int strength(GuardKind g) { return guard_strength(g); }

// The first name below `root` of a Python file under it: the module itself ("x" for root/x.py, `module`
// true) or the folder the file lies in ("pkg" for root/pkg/a.py).
std::string top_name_under(const std::string& root, const std::string& path, bool& module) {
    const std::string rel = root.empty() ? path : path.substr(root.size() + 1);
    const auto slash = rel.find('/');
    module = slash == std::string::npos;
    return module ? rel.substr(0, rel.size() - 3) : rel.substr(0, slash);
}

std::string normalise_package(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(), [](char c) { return c == '-' || c == '.' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    return name;
}

}  // namespace

std::vector<std::string> name_words(const std::string& path) {
    std::vector<std::string> words;
    std::string word;
    const std::string name = base_name(path);
    auto add = [&](const std::string& w) {
        if (w.empty()) return;
        words.push_back(w);
        std::string part;
        for (char c : w + "0") {
            if (std::isdigit(static_cast<unsigned char>(c))) {
                if (!part.empty() && part != w) words.push_back(part);
                part.clear();
            } else {
                part.push_back(c);
            }
        }
    };
    for (char c : name + ".") {
        if (c == '_' || c == '-' || c == '.') {
            add(word);
            word.clear();
        } else {
            word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    return words;
}

bool is_native_header(const std::string& path) {
    return std::any_of(std::begin(kHeaderExtensions), std::end(kHeaderExtensions), [&](std::string_view ext) { return ends_with(path, ext); });
}

Reach reach_for(Level level) {
    switch (level) {
        case Level::core: return Reach::core;
        case Level::optional_fallback:
        case Level::optional_dead: return Reach::optional;
        case Level::tooling: return Reach::tooling;
        case Level::unreached: return Reach::unreached;
    }
    return Reach::core;
}

ProgramModel::ProgramModel(const std::vector<FileRecord>& files, const ProgramVocabulary& vocabulary, const ModelOptions& options)
    : m_options_turned_on(options.options_turned_on), m_vocab(vocabulary), m_container_predictors(options.container_predictors) {
    m_tooling_dirs = vocabulary.tooling_dirs;
    m_tooling_dirs.insert(m_tooling_dirs.end(), options.tooling_dirs.begin(), options.tooling_dirs.end());
    for (const auto& d : options.not_tooling_dirs) m_tooling_dirs.erase(std::remove(m_tooling_dirs.begin(), m_tooling_dirs.end(), d), m_tooling_dirs.end());
    m_tooling_files = vocabulary.tooling_files;
    m_tooling_files.insert(m_tooling_files.end(), options.tooling_files.begin(), options.tooling_files.end());
    m_licensed_dirs = options.licensed_dirs;
    std::sort(m_licensed_dirs.begin(), m_licensed_dirs.end());
    // A folder of checkouts: no licence at the base, and two or more licensed folders right below it.
    if (m_licensed_dirs.empty() || !m_licensed_dirs.front().dir.empty()) {
        for (const auto& l : m_licensed_dirs)
            if (l.dir.find('/') == std::string::npos && (m_projects.empty() || m_projects.back() != l.dir)) m_projects.push_back(l.dir);
        if (m_projects.size() < 2) m_projects.clear();
    }
    index_files(files);
    for (const auto& f : files)
        if ((f.kind == FileKind::python || f.kind == FileKind::config) && f.facts) add_edges(f);
    // A config that names repository code for instantiation (`target: ldm.models.ddpm.DDPM`) is a
    // step of the chain: its readers import it, and it imports what it names.
    if (options.data_readers)
        for (const auto& f : files) {
            if (f.kind != FileKind::config || !f.facts || f.facts->imports.empty()) continue;
            auto it = options.data_readers->find(f.path);
            if (it == options.data_readers->end()) continue;
            for (const auto& r : it->second) m_edges[r.path].push_back({f.path, r.line, GuardKind::none, "", false, {}});
        }
    link_config_dispatch(files);
    link_extensions(files);
    find_skip_scopes(files);
    find_entry_points(files, options);
    compute_reach();
    find_programs();
    // For self_test_block: the first file the run reaches that imports each file (same checkout).
    for (const auto& [from, edges] : m_edges) {
        const auto r = m_reach.find(from);
        if (r == m_reach.end() || r->second.level <= Level::tooling) continue;
        for (const auto& e : edges)
            if (e.to != from && same_project(from, e.to)) m_run_importer.emplace(e.to, std::make_pair(from, e.line));
    }
    // Extensions take the reach of the files that import them.
    for (auto& ext : m_extensions) {
        FileReach best;
        for (const auto& site : ext.imports) {
            // `try: from . import _C` in a core file is an optional extension. Not when the file's
            // other import builds the same CUDA sources just in time: torch-ngp's and stable-dreamfusion's
            // `try: import _gridencoder as _backend` / `except ImportError: from .backend import _backend`,
            // whose backend.py calls cpp_extension.load on the very .cu files setup.py builds.
            const bool same_code_behind = site.guard == GuardKind::import_fallback && jit_builds_same_sources(site.path, ext);
            FileReach r = same_code_behind ? reach_at(site.path, site.line, GuardKind::none, "")
                                           : reach_at(site.path, site.line, site.guard, site.guard_note);
            if (r.level > best.level) best = r;
        }
        // In a file no entry reaches, an extension imported or loaded only under an option that is off by
        // default (`if os.getenv('BASICSR_JIT') == 'True': load(...)`) keeps that guard: nobody runs it as is.
        // So does one imported or built only on a path a Mac never takes (EasyOCR's DBNet ops: `if
        // torch.cuda.is_available(): ... cpp_extension.load(name="deform_pool_cuda", ...)`), by the kind
        // of guard all of its sites share.
        if (best.level == Level::unreached && !ext.imports.empty()) {
            const GuardKind first = ext.imports.front().guard;
            const bool shared = std::all_of(ext.imports.begin(), ext.imports.end(), [&](const ImportSite& s) { return s.guard == first; });
            if (shared && (first == GuardKind::off_by_default || guard_strength(first) == 1)) {
                best.guard = first;
                best.guard_note = ext.imports.front().guard_note + " (" + ext.imports.front().path + ":" + std::to_string(ext.imports.front().line) + ")";
            }
        }
        // A build under a condition makes the extension optional only where nothing requires it:
        // flash-attn's `if not SKIP_CUDA_BUILD:` changes nothing when its package imports it anyway.
        if (ext.imports.empty() && ext.fact.conditional) {
            best.level = Level::optional_fallback;
            best.guard = GuardKind::import_fallback;
            best.guard_note = "built only under a condition in " + ext.defined_in + ":" + std::to_string(ext.fact.line) +
                              ", and no import of " + ext.fact.name + " was found";
        } else if (ext.imports.empty()) {
            best.level = Level::core;  // imported from nowhere we can see: assume it is needed
            best.guard_note = "no import of " + ext.fact.name + " was found";
        }
        // Where the condition for CUDA fails, setup.py builds the same module as a C++ extension: on a
        // Mac it exists, without its CUDA kernels (which ops lack a CPU path is the op-level findings' say).
        if (ext.fact.cuda_optional && best.level > Level::optional_fallback) {
            best.level = Level::optional_fallback;
            best.guard = GuardKind::import_fallback;
            best.guard_note = ends_with(ext.defined_in, ".py") ? "CUDAExtension only under a condition in " + ext.defined_in + ", a CppExtension otherwise"
                                                                : "CUDA sources only under a condition in " + ext.defined_in + ", a C++ build otherwise";
        }
        // A setup script's own switch (`if '--cuda_ext' in sys.argv:`, or the else arm of `if '--no_cuda_ext'
        // in sys.argv: ext_modules = []`) that the documented install leaves in the off position: the
        // extension is not built, and the code runs without it (CodeFormer's and Restormer's basicsr).
        if (!ext.fact.build_flag.empty() && best.level >= Level::optional_dead) {
            const auto use = options.build_flags.find(ext.fact.build_flag);
            const BuildFlagUse none;
            const BuildFlagUse& u = use == options.build_flags.end() ? none : use->second;
            const std::string where = ext.defined_in + ":" + std::to_string(ext.fact.build_flag_line);
            std::string why;
            if (ext.fact.built_when_passed && !u.passed)
                why = "built only when " + ext.defined_in + " is run with " + ext.fact.build_flag + " (" + where +
                      "), which no command or document of the repository passes";
            else if (!ext.fact.built_when_passed && u.passed && !u.install_without)
                why = "the documented install passes " + ext.fact.build_flag + " (" + u.passed->first + ":" + std::to_string(u.passed->second) +
                      "), with which " + ext.defined_in + " builds no extension (" + where + ")";
            if (!why.empty()) {
                best.level = Level::optional_dead;
                best.guard = GuardKind::off_by_default;
                best.guard_note = why;
            }
        }
        ext.reach = best;
    }
    for (const auto& own : m_own) m_summary.own_packages.push_back(own);
    m_unbuilt_own = find_unbuilt_own_modules();
    m_native_product = find_native_products();
}

void ProgramModel::find_skip_scopes(const std::vector<FileRecord>& files) {
    for (const auto& f : files) {
        if (!f.facts) continue;
        for (const auto& skip : f.facts->helper_skips) {
            std::string defined_in;
            if (skip.alias) {
                if (const SkipAlias* a = skip_alias_of(f.path, skip.via, defined_in))
                    m_line_skips[f.path].push_back({skip.line, skip.end_line,
                                                    f.path + ":" + std::to_string(skip.line) + ": " + skip.note + ", bound to `" + a->note + "` (" +
                                                        defined_in + ":" + std::to_string(a->line) + ")"});
                continue;
            }
            if (const ReturnWithoutCuda* r = returns_without_cuda_of(f.path, skip.via, defined_in); r && r->falsy)
                m_line_skips[f.path].push_back({skip.line, skip.end_line,
                                                f.path + ":" + std::to_string(skip.line) + ": " + skip.note + ", and " + skip.via +
                                                    "() answers no without CUDA (" + defined_in + ":" + std::to_string(r->line) + ", under `" +
                                                    r->note + "`)"});
        }
    }
    for (const auto& f : files) {
        if (!f.facts || f.facts->collect_skips.empty()) continue;
        const bool conftest = f.path == "conftest.py" || ends_with(f.path, "/conftest.py");
        for (const auto& skip : f.facts->collect_skips) {
            SkipScope scope{dir_of(f.path), skip.globs, f.path + ":" + std::to_string(skip.line) + ": " + skip.note};
            // An autouse fixture in a test module covers that module only; collect_ignore works in conftest.py only.
            if (!conftest && !skip.fixture) continue;
            if (!conftest) scope.globs = {f.path.substr(scope.dir.empty() ? 0 : scope.dir.size() + 1)};
            if (!skip.via.empty()) {
                // `collect_ignore_glob = helper()`, the helper defined in this file or imported
                // (`from tests._collect import helper`): it must return without CUDA for the list to be
                // a CUDA skip.
                std::string defined_in;
                const ReturnWithoutCuda* found = returns_without_cuda_of(f.path, skip.via, defined_in);
                if (!found) continue;
                scope.note += ", which returns them under `" + found->note + "` (" + defined_in + ":" + std::to_string(found->line) + ")";
                if (conftest) scope.globs = found->strings;
            }
            m_skip_scopes.push_back(std::move(scope));
        }
    }
}

std::vector<std::string> ProgramModel::files_defining(const std::string& path, const std::string& via, std::string& name) const {
    const auto dot = via.rfind('.');
    name = dot == std::string::npos ? via : via.substr(dot + 1);
    std::vector<std::string> files;
    if (dot == std::string::npos) files.push_back(path);
    if (const auto edges = m_edges.find(path); edges != m_edges.end())
        for (const auto& e : edges->second) {
            const bool by_name = e.names && std::find(e.names->begin(), e.names->end(), name) != e.names->end();
            if (dot == std::string::npos ? by_name : !e.names.has_value()) files.push_back(e.to);
        }
    return files;
}

template <typename Fact>
const Fact* ProgramModel::defined_for(const std::string& path, const std::string& via, std::string& defined_in, std::vector<Fact> FileFacts::*facts_of,
                                      std::string Fact::*name_of, bool elsewhere) const {
    std::string name;
    for (const auto& file : files_defining(path, via, name)) {
        if (elsewhere && file == path) continue;
        const auto facts = m_facts.find(file);
        if (facts == m_facts.end()) continue;
        for (const Fact& fact : (*facts->second).*facts_of)
            if (fact.*name_of == name) {
                defined_in = file;
                return &fact;
            }
    }
    return nullptr;
}

const ReturnWithoutCuda* ProgramModel::returns_without_cuda_of(const std::string& path, const std::string& via, std::string& defined_in) const {
    return defined_for(path, via, defined_in, &FileFacts::returns_without_cuda, &ReturnWithoutCuda::function, false);
}

const SkipAlias* ProgramModel::skip_alias_of(const std::string& path, const std::string& via, std::string& defined_in) const {
    // the file's own aliases are its guards' (GuardFinder)
    return defined_for(path, via, defined_in, &FileFacts::skip_aliases, &SkipAlias::name, true);
}

std::optional<std::string> ProgramModel::test_skip_at(const std::string& path, int line) const {
    const auto it = m_line_skips.find(path);
    if (it == m_line_skips.end()) return std::nullopt;
    for (const auto& s : it->second)
        if (line >= s.first && line <= s.last) return s.note;
    return std::nullopt;
}

std::optional<std::string> ProgramModel::test_skip_of(const std::string& path) const {
    for (const auto& scope : m_skip_scopes) {
        if (!scope.dir.empty() && path.compare(0, scope.dir.size() + 1, scope.dir + "/") != 0) continue;
        if (scope.globs.empty()) return scope.note;
        const std::string rel = scope.dir.empty() ? path : path.substr(scope.dir.size() + 1);
        const std::string name = base_name(rel);
        for (const auto& glob : scope.globs) {
            // pytest's fnmatch_ex: a pattern without a slash matches the file name, one with a slash
            // the path (where `*` also matches `/`); collect_ignore may name a folder.
            const bool has_slash = glob.find('/') != std::string::npos;
            if (fnmatch(glob.c_str(), (has_slash ? rel : name).c_str(), 0) == 0) return scope.note;
            if (rel.compare(0, glob.size() + 1, glob + "/") == 0) return scope.note;
        }
    }
    return std::nullopt;
}

std::optional<std::string> ProgramModel::vendored_root(const std::string& path) const {
    // From the nearest folder up. A licensed folder is a project; it is vendored when a project above
    // it (or the scanned base) has another licence: LoRA's examples/NLG carries Microsoft's MIT
    // licence like the repository (its own code), examples/NLU Hugging Face's Apache licence (a copy
    // of transformers). Side-by-side repositories in one tree have no project above them. A licensed
    // folder that is a Python package is the repository's own (its parents may still be vendored).
    const auto licences_of = [&](const std::string& dir) {
        std::vector<std::uint64_t> out;
        auto it = std::lower_bound(m_licensed_dirs.begin(), m_licensed_dirs.end(), LicensedDir{dir, 0});
        for (; it != m_licensed_dirs.end() && it->dir == dir; ++it) out.push_back(it->licence);
        return out;
    };
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> projects;  // nearest first
    for (std::size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1)) {
        const std::string dir = path.substr(0, slash);
        const std::string name = base_name(dir);
        if (std::find(m_vocab.vendored_dirs.begin(), m_vocab.vendored_dirs.end(), name) != m_vocab.vendored_dirs.end()) return dir;
        if (auto l = licences_of(dir); !l.empty()) projects.emplace_back(dir, std::move(l));
    }
    if (auto l = licences_of(""); !l.empty()) projects.emplace_back("", std::move(l));
    for (std::size_t i = 0; i + 1 < projects.size(); ++i) {
        const auto& [dir, licences] = projects[i];
        const auto& outer = projects[i + 1].second;
        const bool same = std::any_of(licences.begin(), licences.end(), [&](std::uint64_t l) { return std::count(outer.begin(), outer.end(), l) > 0; });
        if (!same && !m_python_index.count(dir + "/__init__.py")) return dir;
    }
    return std::nullopt;
}

std::pair<std::string, int> split_chain_step(const std::string& step) {
    const auto colon = step.rfind(':');
    if (colon == std::string::npos || colon + 1 == step.size() ||
        !std::all_of(step.begin() + static_cast<std::ptrdiff_t>(colon) + 1, step.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return {step, 0};
    return {step.substr(0, colon), std::stoi(step.substr(colon + 1))};
}

std::optional<std::string> ProgramModel::module_in_project(const std::string& dotted, const std::string& from) const {
    for (const auto& root : import_bases(dir_of(from), dotted, from))
        if (m_projects.empty() || project_of(root + "/") == project_of(from))
            if (auto m = find_module(root, dotted)) return m;
    return std::nullopt;
}

std::optional<std::string> folder_where(const std::string& path, const std::function<bool(const std::string&)>& holds) {
    for (std::size_t pos = 0, slash = path.find('/'); slash != std::string::npos; pos = slash + 1, slash = path.find('/', pos))
        if (holds(path.substr(pos, slash - pos))) return path.substr(0, slash);
    return std::nullopt;
}

std::optional<std::string> folder_named(const std::string& path, const std::vector<std::string>& names) {
    const auto dir = folder_where(path, [&](const std::string& name) { return std::find(names.begin(), names.end(), name) != names.end(); });
    if (!dir) return std::nullopt;
    return base_name(*dir);
}

bool ProgramModel::in_tooling_folder(const std::string& path) const { return folder_named(path, m_tooling_dirs).has_value(); }

bool ProgramModel::is_tooling_path(const std::string& path) const {
    if (folder_named(path, m_tooling_dirs)) return true;
    return matches_any_glob(m_tooling_files, base_name(path));
}

void ProgramModel::index_files(const std::vector<FileRecord>& files) {
    for (const auto& f : files) {
        if (f.kind == FileKind::python) {
            m_python.insert(f.path);
            m_python_index.insert(f.path);
            for (std::string d = dir_of(f.path); !d.empty() && m_dirs.insert(d).second; d = dir_of(d)) {
            }
        }
        if (f.kind == FileKind::cuda || f.kind == FileKind::cpp) m_native.insert(f.path);
        if (f.facts) m_facts[f.path] = f.facts;
        if (f.facts)
            for (const auto& c : f.facts->ops_calls) m_ops_calls[c.ns].push_back({f.path, c.line, c.op, c.guard, c.guard_note, {}});
    }
    m_roots = {"", "src"};
    for (const auto& path : m_python) {
        if (!ends_with(path, "__init__.py")) continue;
        // The folder above the outermost package is a root: `lib/pkg/sub/__init__.py` -> `lib`.
        std::string top = dir_of(path);
        while (!top.empty() && m_python_index.count(join(dir_of(top), "__init__.py"))) top = dir_of(top);
        if (!top.empty()) m_roots.insert(dir_of(top));
    }
    // Under which roots each top-level name lies: every root above a file, with the file's first
    // component below it (a module, a package or a namespace package). The repository's own
    // top-level names are the modules directly in a root, the packages (with __init__.py) under one, and
    // the namespace packages that hold outermost packages.
    for (const auto& path : m_python) {
        for (std::string root = dir_of(path);; root = dir_of(root)) {
            if (m_roots.count(root)) {
                bool module = false;
                const std::string head = top_name_under(root, path, module);
                m_root_heads[head].push_back(root);
                // A namespace package (a folder without __init__.py whose packages are the outermost
                // ones: Megatron-LM's megatron/, holding megatron/core and megatron/training) is the
                // repository's own as much as a package is.
                if (module || m_python_index.count(join(root, head + "/__init__.py")) || m_roots.count(join(root, head))) own(path, head);
            }
            if (root.empty()) break;
        }
    }
    for (auto& [head, roots] : m_root_heads) {
        std::sort(roots.begin(), roots.end());
        roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    }
    add_sys_path_roots(files);
    for (const auto& f : files) {
        if (!f.facts) continue;
        for (const auto& name : f.facts->project_names) own(f.path, normalise_package(name));
        // An extension the repository builds (`knn_cuda`) is its own module, even when a PyPI package has the name.
        for (const auto& ext : f.facts->extensions) own(f.path, normalise_package(ext.name.substr(0, ext.name.find('.'))));
    }
}

// A folder a file puts on sys.path (RAFT's train.py: `sys.path.append('core')`, then `from raft import
// RAFT`) is a root too, for the names no other root holds: the modules directly in it and the packages
// under it, which are the repository's own. The folder is taken relative to the file's own (a script
// is run from where it lies); one outside the repository, or with no Python file, adds nothing.
void ProgramModel::add_sys_path_roots(const std::vector<FileRecord>& files) {
    std::set<std::string> folders;
    for (const auto& f : files) {
        if (!f.facts || f.facts->sys_path_folders.empty()) continue;
        for (const auto& rel : f.facts->sys_path_folders) {
            // a folder above the repository normalises to "" (the root), a root already
            const std::string folder = normalise_relative(join(dir_of(f.path), rel));
            if (!m_roots.count(folder) && m_dirs.count(folder)) folders.insert(folder);
        }
    }
    for (const auto& root : folders) {
        const std::string prefix = root.empty() ? "" : root + "/";
        for (auto it = m_python.lower_bound(prefix); it != m_python.end() && it->compare(0, prefix.size(), prefix) == 0; ++it) {
            bool module = false;
            const std::string head = top_name_under(root, *it, module);
            if (!module && !m_python_index.count(join(root, head + "/__init__.py"))) continue;
            auto& roots = m_root_heads[head];
            if (!roots.empty() && std::find(roots.begin(), roots.end(), root) == roots.end()) continue;  // another root holds it
            if (roots.empty()) roots.push_back(root);
            own(*it, head);
        }
        m_roots.insert(root);
    }
}

const std::string& ProgramModel::project_of(const std::string& path) const {
    static const std::string none;
    for (const auto& p : m_projects)
        if (path.size() > p.size() && path[p.size()] == '/' && path.compare(0, p.size(), p) == 0) return p;
    return none;
}

const std::vector<std::string>& ProgramModel::roots_holding(std::string_view dotted) const {
    static const std::vector<std::string> none;
    const auto it = m_root_heads.find(dotted.substr(0, dotted.find('.')));
    return it == m_root_heads.end() ? none : it->second;
}

std::vector<std::string> ProgramModel::roots_holding(std::string_view dotted, const std::string& near) const {
    std::vector<std::string> roots = roots_holding(dotted);
    // How deep the root is when `near` lies under it, -1 when not.
    auto depth = [&](const std::string& root) -> long {
        if (root.empty()) return 0;
        if (near.size() <= root.size() || near[root.size()] != '/' || near.compare(0, root.size(), root) != 0) return -1;
        return static_cast<long>(std::count(root.begin(), root.end(), '/')) + 1;
    };
    std::stable_sort(roots.begin(), roots.end(), [&](const std::string& a, const std::string& b) { return depth(a) > depth(b); });
    return roots;
}

std::vector<std::string> ProgramModel::import_bases(std::string dir, const std::string& dotted, const std::string& near) const {
    std::vector<std::string> out;
    for (; !dotted.empty(); dir = dir_of(dir)) {
        if (find_module(dir, dotted)) out.push_back(dir);
        if (dir.empty()) break;
    }
    const auto roots = roots_holding(dotted, near);
    out.insert(out.end(), roots.begin(), roots.end());
    return out;
}

void ProgramModel::own(const std::string& path, const std::string& name) {
    m_own.insert(name);
    if (!m_projects.empty()) m_own_in[project_of(path)].insert(name);
}

bool ProgramModel::is_own_package(std::string_view top_level) const { return m_own.count(normalise_package(std::string(top_level))) > 0; }

bool ProgramModel::is_own_package(std::string_view top_level, const std::string& path) const {
    if (m_projects.empty()) return is_own_package(top_level);
    auto it = m_own_in.find(project_of(path));
    return it != m_own_in.end() && it->second.count(normalise_package(std::string(top_level))) > 0;
}

bool ProgramModel::has_cuda_sources(const std::string& path) const {
    const std::string& project = project_of(path);
    return std::any_of(m_native.begin(), m_native.end(), [&](const std::string& f) {
        return (ends_with(f, ".cu") || ends_with(f, ".cuh")) && (m_projects.empty() || project_of(f) == project);
    });
}

std::optional<std::string> ProgramModel::find_module(const std::string& base, const std::string& dotted) const {
    if (dotted.empty()) {
        const std::string init = join(base, "__init__.py");
        return m_python_index.count(init) ? std::optional<std::string>(init) : std::nullopt;
    }
    const std::string rel = join(base, dotted_to_path(dotted));
    if (m_python_index.count(rel + ".py")) return rel + ".py";
    if (m_python_index.count(rel + "/__init__.py")) return rel + "/__init__.py";
    return std::nullopt;
}

std::string ProgramModel::module_name_of(const std::string& path) const {
    std::string mod = path.substr(0, path.size() - 3);
    if (ends_with(mod, "/__init__")) mod = mod.substr(0, mod.size() - 9);
    std::string dir = dir_of(path);
    // Climb while the folder is a package: the dotted name starts below the first non-package folder.
    std::string top = dir;
    while (!top.empty() && m_python_index.count(join(top, "__init__.py"))) top = dir_of(top);
    std::string rel = top.empty() ? mod : mod.substr(top.size() + 1);
    std::replace(rel.begin(), rel.end(), '/', '.');
    return rel;
}

bool ProgramModel::names_in_python(const std::string& name, const std::string& defining) const {
    const std::uint32_t h = name_hash(name);
    for (const auto& [path, facts] : m_facts) {
        if (!same_project(path, defining)) continue;
        if (std::binary_search(facts->attribute_names.begin(), facts->attribute_names.end(), h)) return true;
        for (const auto& imp : facts->imports)
            if (std::find(imp.names.begin(), imp.names.end(), name) != imp.names.end()) return true;
    }
    return false;
}

bool ProgramModel::binds_name(const std::string& init, const std::string& name) const {
    auto it = m_facts.find(init);
    if (it == m_facts.end()) return false;
    for (const auto& imp : it->second->imports)
        if (std::find(imp.names.begin(), imp.names.end(), name) != imp.names.end()) return true;
    return false;
}

bool ProgramModel::binds_no_own_module(const std::string& path) const {
    auto it = m_facts.find(path);
    if (it == m_facts.end()) return false;
    if (!it->second->extensions.empty()) return false;
    return std::none_of(it->second->imports.begin(), it->second->imports.end(), [&](const ImportFact& imp) {
        return imp.level > 0 || is_own_package(imp.module.substr(0, imp.module.find('.')), path);
    });
}

// neuralangelo's `importlib.import_module(cfg.trainer.type)` imports whichever module the run's config
// names at trainer.type: the import is a step to each config that names one there
// (`projects/neuralangelo/configs/base.yaml`: `type: projects.neuralangelo.trainer`), and the config
// imports the module (its ImportFact with the same config_key). A config the code names nowhere
// by path is not read, so it names nothing here.
void ProgramModel::link_config_dispatch(const std::vector<FileRecord>& files) {
    std::map<std::string, std::set<std::string>> configs_at;  // key path -> the configs with a dotted value there
    for (const auto& f : files)
        if (f.kind == FileKind::config && f.facts)
            for (const auto& imp : f.facts->imports)
                if (!imp.config_key.empty()) configs_at[imp.config_key].insert(f.path);
    if (configs_at.empty()) return;
    for (const auto& f : files) {
        if (f.kind != FileKind::python || !f.facts) continue;
        for (const auto& imp : f.facts->imports) {
            if (imp.config_key.empty() || !imp.module.empty()) continue;
            const auto it = configs_at.find(imp.config_key);
            if (it == configs_at.end()) continue;
            const auto [guard, guard_note] = guard_as_commanded(imp);
            for (const auto& config : it->second)
                if (same_project(f.path, config)) m_edges[f.path].push_back({config, imp.line, guard, guard_note, imp.lazy, {}});
        }
    }
}

void ProgramModel::add_edges(const FileRecord& file) {
    if (file.facts->remote_code_line > 0 && !is_tooling_path(file.path))
        m_remote_code.emplace(project_of(file.path), file.path + ":" + std::to_string(file.facts->remote_code_line));
    auto& edges = m_edges[file.path];
    const std::string here = dir_of(file.path);
    for (const auto& imp : file.facts->imports) {
        if (!imp.config_key.empty() && imp.module.empty()) continue;  // linked to the configs that name one (link_config_dispatch)
        const auto [guard, guard_note] = guard_as_commanded(imp);
        if (!imp.lazy && guard == GuardKind::none) m_imports_on_load.insert({file.path, imp.line});
        using Names = std::optional<std::vector<std::string>>;
        const bool star = std::find(imp.names.begin(), imp.names.end(), "*") != imp.names.end();
        const Names taken = imp.names.empty() || star ? Names() : Names(imp.names);  // from the module the statement names
        auto add = [&, guard = guard, guard_note = guard_note](const std::string& to, Names names = Names()) {
            edges.push_back({to, imp.line, guard, guard_note, imp.lazy, std::move(names)});
        };
        std::vector<std::string> dotted_names;  // absolute names, for extensions and outside packages
        if (imp.level == 0 && imp.module.find('*') != std::string::npos) {
            // `importlib.import_module(f"app.{app}.train")`: every module of the project whose last
            // folders and name the pattern matches (app/vjepa/train.py, app/vjepa_droid/train.py)
            std::string glob = imp.module;
            std::replace(glob.begin(), glob.end(), '.', '/');
            const auto depth = std::count(glob.begin(), glob.end(), '/');
            const std::string& project = project_of(file.path);
            for (const auto& path : m_python) {
                if (path == file.path || project_of(path) != project) continue;
                std::string mod = path.substr(0, path.size() - 3);
                if (ends_with(mod, "/__init__")) mod.resize(mod.size() - 9);
                const auto total = std::count(mod.begin(), mod.end(), '/');
                if (total < depth) continue;
                std::size_t at = 0;
                for (auto k = total - depth; k > 0; --k) at = mod.find('/', at) + 1;
                const std::string tail = mod.substr(at);
                if (fnmatch(glob.c_str(), tail.c_str(), FNM_PATHNAME) == 0) add(path);
            }
            continue;
        }
        if (imp.level > 0) {
            std::string pkg_dir = here;
            for (int up = 1; up < imp.level; ++up) pkg_dir = dir_of(pkg_dir);
            const std::string pkg_name = relative_base(file.path, imp.level);
            const std::string module_abs = imp.module.empty() ? pkg_name : (pkg_name.empty() ? imp.module : pkg_name + "." + imp.module);
            dotted_names.push_back(module_abs);
            if (auto m = find_module(pkg_dir, imp.module)) add(*m, taken);
            for (const auto& n : imp.names) {
                if (auto m = find_module(pkg_dir, imp.module.empty() ? n : imp.module + "." + n)) add(*m);
                // `from . import _C` in a sibling of the __init__ that already imported _C (under a
                // try) takes the package's attribute: the extension is imported there, not here.
                const auto init = find_module(pkg_dir, imp.module);
                if (init && *init != file.path && binds_name(*init, n)) continue;
                dotted_names.push_back(module_abs.empty() ? n : module_abs + "." + n);
            }
        } else {
            dotted_names.push_back(imp.module);
            for (const auto& n : imp.names) dotted_names.push_back(imp.module + "." + n);
            std::vector<std::string> bases{here};  // a module beside the importer first
            const auto more = import_bases(dir_of(here), imp.module, file.path);
            bases.insert(bases.end(), more.begin(), more.end());
            const std::string head = imp.module.substr(0, imp.module.find('.'));
            const std::string& project = project_of(file.path);
            for (const auto& base : bases) {
                // another repository of the tree: its modules are not this one's
                if (!m_projects.empty() && project_of(base + "/") != project) continue;
                // a module, a package, or a namespace package (a folder of modules without __init__.py:
                // RWKV's `from src.model import GPT`, latent-diffusion's `ldm`)
                if (!find_module(base, head) && !m_dirs.count(join(base, head))) continue;
                // A module beside the importer named like the head of a dotted import does not shadow the
                // package unless the whole name resolves there: lightweight_gan/cli.py's `from
                // lightweight_gan.diff_augment_test import ...` is the package's module, not one under
                // lightweight_gan/lightweight_gan.py.
                if (base == here && imp.module.find('.') != std::string::npos && bases.size() > 1 && !find_module(base, imp.module)) {
                    std::string folder = imp.module;
                    std::replace(folder.begin(), folder.end(), '.', '/');
                    if (!m_dirs.count(join(base, folder))) continue;  // nor a namespace package (safari's src/tasks)
                }
                // Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
                std::string prefix;
                std::size_t pos = 0;
                while (pos != std::string::npos) {
                    const std::size_t dot = imp.module.find('.', pos);
                    prefix = imp.module.substr(0, dot);
                    // `from a.b import x` loads a/__init__.py and takes nothing from it; `import a.b`
                    // reaches a's names through `a.`
                    const Names names = dot == std::string::npos ? taken : imp.names.empty() ? Names() : Names(std::vector<std::string>());
                    if (auto m = find_module(base, prefix)) add(*m, names);
                    pos = dot == std::string::npos ? dot : dot + 1;
                }
                for (const auto& n : imp.names)
                    if (auto m = find_module(base, imp.module + "." + n)) add(*m);
                break;
            }
        }
        if (file.kind != FileKind::python) continue;  // a config's names are no imports of outside packages
        for (const auto& name : dotted_names)
            if (!name.empty()) m_external[name].push_back({file.path, imp.line, guard, guard_note});
        if (!imp.module.empty() && imp.level == 0)
            m_package_importers[imp.module.substr(0, imp.module.find('.'))].push_back({file.path, imp.line});
    }
}

std::string ProgramModel::relative_base(const std::string& path, int level) const {
    std::string pkg_dir = dir_of(path);
    for (int up = 1; up < level; ++up) pkg_dir = dir_of(pkg_dir);
    const std::string pkg_path = join(pkg_dir, "__init__.py");
    std::string pkg_name = module_name_of(m_python_index.count(pkg_path) ? pkg_path : join(pkg_dir, "x.py"));
    if (!m_python_index.count(pkg_path)) pkg_name = pkg_name.substr(0, pkg_name.rfind('.') == std::string::npos ? 0 : pkg_name.rfind('.'));
    return pkg_name;
}

bool ProgramModel::jit_builds_same_sources(const std::string& importer, const ExtensionLink& ext) const {
    if (!ext.fact.cuda || ext.sources.empty()) return false;
    const auto edges = m_edges.find(importer);
    if (edges == m_edges.end()) return false;
    for (const auto& e : edges->second)
        for (const auto& other : m_extensions) {
            if (&other == &ext || other.defined_in != e.to || !other.fact.cuda) continue;
            if (std::any_of(other.sources.begin(), other.sources.end(),
                            [&](const std::string& s) { return std::find(ext.sources.begin(), ext.sources.end(), s) != ext.sources.end(); }))
                return true;
        }
    return false;
}

FileReach ProgramModel::reach_at(const std::string& path, int line, GuardKind guard, const std::string& guard_note) const {
    FileReach r = reach_of(path);
    if (r.level >= Level::optional_dead && strength(guard) < static_cast<int>(r.level)) {
        r.level = static_cast<Level>(strength(guard));
        r.guard = guard;
        r.guard_note = guard_note + " (" + path + ":" + std::to_string(line) + ")";
    }
    if (!r.chain.empty()) r.chain.back() += ":" + std::to_string(line);
    return r;
}

std::map<std::string, std::set<int>> ProgramModel::extension_import_lines() const {
    std::map<std::string, std::set<int>> out;
    for (const auto& ext : m_extensions)
        for (const auto& site : ext.imports)
            if (m_python_index.count(site.path)) out[site.path].insert(site.line);
    return out;
}

std::vector<ImportSite> ProgramModel::importers_of(const std::string& module, const std::string& name) const {
    // A package's __init__.py that imports the name re-exports it (`from .ms_deform_attn_func import
    // MSDeformAttnFunction`): those who import the name from the package are its users. With none,
    // the __init__ itself stays (the name is the package's API, as needed as the package).
    std::set<std::string> seen;
    std::function<std::vector<ImportSite>(const std::string&)> expand = [&](const std::string& from) {
        std::vector<ImportSite> out;
        if (!seen.insert(from).second) return out;
        const auto it = name_imports().find(from + '\0' + name);
        if (it == name_imports().end()) return out;
        for (const auto& site : it->second) {
            const bool init = ends_with(site.path, "/__init__.py") || site.path == "__init__.py";
            const std::string package = init ? module_name_of(site.path) : std::string();
            std::vector<ImportSite> users = init && package != from ? expand(package) : std::vector<ImportSite>();
            if (users.empty()) out.push_back(site);
            else out.insert(out.end(), users.begin(), users.end());
        }
        return out;
    };
    return expand(module);
}

std::map<std::string, std::set<int>> ProgramModel::caller_import_lines() {
    std::map<std::string, std::set<int>> out;
    m_caller_requests.clear();
    m_loader_functions.clear();
    // A function that JIT-builds a CUDA-only extension (BigVGAN's load.load()): the files that import
    // it, or its module from the package (`from alias_free_activation.cuda import load`), are read for
    // calls of it at module level (add_caller_calls), which build the extension when they are imported.
    for (const auto& ext : m_extensions) {
        if (!ext.fact.cuda || ext.fact.cuda_optional || ext.fact.built_in_function.empty()) continue;
        // keyed by the file, not its dotted name: a folder with no __init__.py has no one dotted name
        const std::string& function = ext.fact.built_in_function;
        const std::string key = ext.defined_in + '\0' + function;
        m_loader_functions.emplace(key, ext.fact.name + " (" + ext.defined_in + ":" + std::to_string(ext.fact.line) + ")");
        for (const auto& [from, edges] : m_edges)
            for (const auto& e : edges) {
                if (e.to != ext.defined_in || from == ext.defined_in || e.lazy || e.guard != GuardKind::none || !m_python_index.count(from)) continue;
                if (e.names && std::find(e.names->begin(), e.names->end(), function) == e.names->end()) continue;
                out[from].insert(e.line);
                auto& keys = m_caller_requests[{from, e.line}];
                if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
            }
    }
    for (const auto& ext : m_extensions)
        for (const auto& call : ext.calls) {
            if (call.function.empty()) continue;
            const std::string key = module_name_of(call.path) + '\0' + call.function;
            for (const auto& site : importers_of(module_name_of(call.path), call.function)) {
                if (site.path == call.path || !m_python_index.count(site.path)) continue;
                out[site.path].insert(site.line);
                auto& keys = m_caller_requests[{site.path, site.line}];
                if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
            }
        }
    return out;
}

void ProgramModel::add_caller_calls(const std::string& path, const std::vector<ImportedCall>& calls) {
    for (const auto& call : calls) {
        const auto it = m_caller_requests.find({path, call.import_line});
        if (it == m_caller_requests.end()) continue;
        for (const auto& key : it->second) {
            // the call goes through the imported name: `F.apply(...)`, `F(...)`, `mod.F(...)`
            const std::string name = key.substr(key.find('\0') + 1);
            const std::string& d = call.dotted;
            const bool names_it = d == name || ends_with(d, "." + name) || d.find(name + ".") == 0 || d.find("." + name + ".") != std::string::npos;
            if (!names_it) continue;
            if (const auto loader = m_loader_functions.find(key); loader != m_loader_functions.end()) {
                if (call.module_level && call.guard == GuardKind::none)
                    m_loaded_on_import.emplace(path, "the CUDA extension " + loader->second + ", which its call of " + call.dotted + "() at " + path +
                                                         ":" + std::to_string(call.line) + " builds");
                continue;
            }
            m_caller_calls[key].push_back({path, call.line, name, call.guard, call.guard_note, std::string()});
        }
    }
}

namespace {

// The op a call names through extension `ext`: "pkg._C.knn" through "pkg._C" is "knn"; "" if the
// call does not go through it.
std::string op_through(const std::string& callee, const std::string& ext) {
    std::size_t at = std::string::npos;
    if (callee.compare(0, ext.size() + 1, ext + ".") == 0) at = ext.size() + 1;
    else if (ext.find('.') == std::string::npos && callee.find("." + ext + ".") != std::string::npos) at = callee.find("." + ext + ".") + ext.size() + 2;
    if (at == std::string::npos) return "";
    return callee.substr(at, callee.find('.', at) - at);
}

}  // namespace

void ProgramModel::add_imported_calls(const std::string& path, const std::vector<ImportedCall>& calls) {
    auto facts = m_facts.find(path);
    if (facts == m_facts.end()) return;
    for (const auto& call : calls) {
        const auto imp = std::find_if(facts->second->imports.begin(), facts->second->imports.end(),
                                      [&](const ImportFact& i) { return i.line == call.import_line; });
        if (imp == facts->second->imports.end()) continue;
        std::string callee = call.dotted;
        if (imp->level > 0) {
            const std::string base = relative_base(path, imp->level);
            if (!base.empty()) callee = base + "." + callee;
        }
        for (auto& ext : m_extensions) {
            const bool imported_here = std::any_of(ext.imports.begin(), ext.imports.end(),
                                                   [&](const ImportSite& s) { return s.path == path && s.line == call.import_line; });
            if (!imported_here) continue;
            // `from knn_cuda import knn`: the import names the op itself
            std::string op = op_through(callee, ext.fact.name);
            if (op.empty()) {
                const std::string tail = ext.fact.name.substr(ext.fact.name.rfind('.') + 1);
                if (!imp->module.empty() && (imp->module == ext.fact.name || ends_with(imp->module, "." + tail) || imp->module == tail))
                    op = callee.substr(callee.rfind('.') + 1);
            }
            if (!op.empty())
                ext.calls.push_back({path, call.line, op, call.guard, call.guard_note, call.function_used_here ? std::string() : call.function});
        }
    }
}

std::vector<CallSite> ProgramModel::ops_calls(const std::string& ns, const std::string& op, const std::string& registered_in) const {
    std::vector<CallSite> out;
    auto it = m_ops_calls.find(ns);
    if (it == m_ops_calls.end()) return out;
    for (const auto& c : it->second)
        if ((op.empty() || c.op == op) && (m_projects.empty() || project_of(c.path) == project_of(registered_in))) out.push_back(c);
    return out;
}

std::pair<GuardKind, std::string> ProgramModel::guard_as_commanded(const ImportFact& imp) const {
    if (imp.guard == GuardKind::off_by_default && m_options_turned_on.count(imp.guard_note)) return guard_once_turned_on(imp.guard_note);
    return {imp.guard, imp.guard_note};
}

const std::map<std::string, std::vector<ImportSite>>& ProgramModel::name_imports() const {
    if (m_name_imports) return *m_name_imports;
    m_name_imports.emplace();
    for (const auto& [path, facts] : m_facts)
        for (const auto& imp : facts->imports) {
            const auto [guard, guard_note] = guard_as_commanded(imp);
            std::string from = imp.module;
            if (imp.level > 0) {
                const std::string base = relative_base(path, imp.level);
                from = imp.module.empty() ? base : (base.empty() ? imp.module : base + "." + imp.module);
            }
            const ImportSite site{path, imp.line, guard, guard_note};
            if (imp.names.empty()) (*m_name_imports)[from + '\0'].push_back(site);
            for (const auto& n : imp.names) (*m_name_imports)[from + '\0' + n].push_back(site);
        }
    return *m_name_imports;
}

FileReach ProgramModel::reach_of_call(const CallSite& call) const {
    FileReach here = reach_at(call.path, call.line, call.guard, call.guard_note);
    // Test files' functions are run by the test runner, not imported: their file decides.
    if (call.function.empty() || here.level <= Level::tooling) return here;
    // Which files import the function by name (`from geo.ops import knn`, `from .ops import knn`);
    // a file that imports the whole module (`import geo.ops`, `from geo import ops`) may call it
    // through the module: then the call's own file decides, as before.
    const std::string module = module_name_of(call.path);
    const auto dot = module.rfind('.');
    const std::string parent = dot == std::string::npos ? std::string() : module.substr(0, dot);
    const std::string leaf = dot == std::string::npos ? module : module.substr(dot + 1);
    auto importers = [&](const std::string& from, const std::string& name) -> const std::vector<ImportSite>& {
        static const std::vector<ImportSite> none;
        const auto it = name_imports().find(from + '\0' + name);
        return it == name_imports().end() ? none : it->second;
    };
    auto from_elsewhere = [&](const std::vector<ImportSite>& sites) {
        return std::any_of(sites.begin(), sites.end(), [&](const ImportSite& s) { return s.path != call.path; });
    };
    if (from_elsewhere(importers(module, "")) || from_elsewhere(importers(parent, leaf)) || from_elsewhere(importers(module, "*")))
        return here;
    // Each importing file counts by its calls of the function when they were looked for (the guard
    // around the call is the one that matters), else by its import.
    const auto called = m_caller_calls.find(module + '\0' + call.function);
    std::optional<FileReach> best;
    for (const auto& site : importers_of(module, call.function)) {
        if (site.path == call.path) continue;
        bool by_calls = false;
        if (called != m_caller_calls.end())
            for (const auto& c : called->second) {
                if (c.path != site.path) continue;
                by_calls = true;
                FileReach r = reach_at(c.path, c.line, c.guard, c.guard_note);
                if (!best || r.level > best->level) best = r;
            }
        if (by_calls) continue;
        FileReach r = reach_at(site.path, site.line, site.guard, site.guard_note);
        if (!best || r.level > best->level) best = r;
    }
    if (!best) {
        FileReach none;
        none.guard_note = "the call sits in " + call.function + "() of " + call.path + ":" + std::to_string(call.line) +
                          ", which no file imports or calls";
        return none;
    }
    FileReach r = *best;
    r.chain.push_back(call.path + ":" + std::to_string(call.line));
    return r.level > here.level ? here : r;  // never stronger than its own file
}

std::optional<FileReach> ProgramModel::reach_of_calls(const std::vector<CallSite>& calls) const {
    std::optional<FileReach> best;
    for (const auto& c : calls) {
        FileReach r = reach_of_call(c);
        if (!best || r.level > best->level) best = r;
    }
    return best;
}

void ProgramModel::link_extensions(const std::vector<FileRecord>& files) {
    std::map<std::string, std::vector<const std::string*>> by_last;  // "_C" -> "pkg._C", "other._C"
    for (const auto& [dotted, sites] : m_external)
        if (auto dot = dotted.rfind('.'); dot != std::string::npos) by_last[dotted.substr(dot + 1)].push_back(&dotted);
    for (const auto& f : files) {
        if (!f.facts) continue;
        for (const auto& e : f.facts->extensions) {
            ExtensionLink link;
            link.fact = e;
            link.defined_in = f.path;
            for (const auto& s : e.sources) {
                const std::string p = normalise_relative(join(dir_of(f.path), s));
                if (!p.empty()) link.sources.push_back(p);
                // setup.py often lists sources relative to the repository, where it also lives
                const std::string from_root = normalise_relative(s);
                if (!from_root.empty() && from_root != p) link.sources.push_back(from_root);
                // or to the folder the run starts in, above the loading file: RWKV's src/model.py
                // loads "cuda/wkv_op.cpp", which is RWKV-v4neo/cuda/ when train.py runs from RWKV-v4neo/
                for (std::string up = dir_of(dir_of(f.path)); !up.empty(); up = dir_of(up)) {
                    const std::string q = normalise_relative(join(up, s));
                    if (!q.empty() && m_native.count(q) && std::find(link.sources.begin(), link.sources.end(), q) == link.sources.end())
                        link.sources.push_back(q);
                }
            }
            m_any_sources = m_any_sources || !link.sources.empty();
            // `from pkg import _C`, `import pkg._C`, `from . import _C` in pkg/: the dotted name matches,
            // or ends with it when the extension names a bare module (`knn_cuda`).
            std::set<std::string> matching;  // in name order, as the import sites have always been listed
            if (m_external.count(e.name)) matching.insert(e.name);
            // Not a package of the repository's own that ends with the same word: CodeFormer's `from . import
            // upfirdn2d_ext` in basicsr/ops/upfirdn2d/ names the package basicsr.ops.upfirdn2d, not the JIT
            // module 'upfirdn2d' that the same file loads.
            // Nor a name imported from a module file of its own (`from .upfirdn2d import upfirdn2d`: a function).
            auto own_module = [&](const std::string& dotted) {
                const auto dot = dotted.rfind('.');
                const std::string parent = dot == std::string::npos ? std::string() : dotted.substr(0, dot);
                std::vector<std::string> bases{""};
                const auto& holding = roots_holding(dotted);
                bases.insert(bases.end(), holding.begin(), holding.end());
                for (const auto& base : bases) {
                    if (find_module(base, dotted)) return true;
                    if (const auto m = parent.empty() ? std::nullopt : find_module(base, parent); m && !ends_with(*m, "__init__.py")) return true;
                }
                return false;
            };
            if (e.name.find('.') == std::string::npos)
                if (auto it = by_last.find(e.name); it != by_last.end())
                    for (const std::string* dotted : it->second)
                        if (!own_module(*dotted)) matching.insert(*dotted);
            for (const auto& dotted : matching) {
                for (const auto& site : m_external.at(dotted))
                    if ((m_projects.empty() || project_of(site.path) == project_of(f.path)) && std::none_of(link.imports.begin(), link.imports.end(), [&](const ImportSite& s2) { return s2.path == site.path && s2.line == site.line; }))
                        link.imports.push_back(site);
            }
            m_extensions.push_back(std::move(link));
        }
    }
}

// kohya's library/sdxl_original_control_net.py: a module the run imports, with a test at its foot
// (`if __name__ == "__main__": ... torch.randn(...).cuda()`). That block runs only when someone runs
// the module itself, which no command of the repository does: a self-test, tooling.
std::optional<std::string> ProgramModel::self_test_block(const std::string& path, int line) const {
    const auto facts = m_facts.find(path);
    if (facts == m_facts.end() || !facts->second->script || line < facts->second->script_line || line > facts->second->script_end_line ||
        m_commanded.count(path))
        return std::nullopt;
    const auto importer = m_run_importer.find(path);
    if (importer == m_run_importer.end()) return std::nullopt;
    return "in the __main__ block (line " + std::to_string(facts->second->script_line) + ") of a module that " + importer->second.first + ":" +
           std::to_string(importer->second.second) + " imports, and no command runs: a self-test";
}

void ProgramModel::find_entry_points(const std::vector<FileRecord>& files, const ModelOptions& options) {
    // A path found again for a training reason (a launch script runs a module whose __main__ block
    // looked like a self-test) becomes a training entry.
    auto add = [&](const std::string& path, std::string why, bool self_test = false) {
        const bool tooling = self_test || is_tooling_path(path);
        for (auto& e : m_summary.entry_points) {
            if (e.path != path) continue;
            if (e.tooling && !tooling) e = {path, std::move(why), false};
            return;
        }
        m_summary.entry_points.push_back({path, std::move(why), tooling});
    };
    // A module of the project's own declared package that nothing imports, whose __main__ block is
    // its only use, is a library module with a smoke test at its foot (`if __name__ == "__main__":
    // model = Net(); model(torch.randn(...))`): a tooling entry, unless something runs it.
    std::set<std::string> declared, imported;
    for (const auto& f : files)
        if (f.facts)
            for (const auto& n : f.facts->project_names) declared.insert(normalise_package(n));
    for (const auto& [from, edges] : m_edges)
        for (const auto& e : edges)
            if (e.to != from) imported.insert(e.to);
    auto self_test = [&](const std::string& path) {
        if (ends_with(path, "/__main__.py") || !m_python_index.count(join(dir_of(path), "__init__.py"))) return false;
        // A module of a package that the repository's code imports, whose name says no program (InternVL's
        // internvl/patch/llama2_flash_attn_monkey_patch.py): its __main__ block tests the module; the
        // run reaches it through its importers. dinov2/train/train.py, which the launcher imports, stays
        // a program.
        if (imported.count(path)) return !named_as_program(path);
        std::string top = dir_of(path);
        while (!top.empty() && m_python_index.count(join(dir_of(top), "__init__.py"))) top = dir_of(top);  // a root __init__.py too (flownet2-pytorch)
        const std::string name = base_name(top);
        return declared.count(normalise_package(name)) > 0 && m_roots.count(dir_of(top)) > 0;
    };
    if (!options.entries.empty()) {
        for (const auto& e : options.entries) {
            const std::string p = normalise_relative(e);
            if (m_python_index.count(p) || std::any_of(files.begin(), files.end(), [&](const FileRecord& f) { return f.path == p; })) {
                add(p, "--entry");
                m_commanded[p];
            } else {
                throw std::runtime_error("--entry " + e + ": no such Python file was scanned (paths are relative to the scanned folder)");
            }
        }
        for (auto& e : m_summary.entry_points) e.tooling = false;
        return;
    }
    std::vector<std::pair<const EntryRef*, const FileRecord*>> documented;  // imports in documents' code
    std::vector<std::pair<const EntryRef*, const FileRecord*>> absent_modules;  // modules launched that no file is
    // Whether a Python file of the repository is `wanted` or ends with it, whatever folder a command runs in.
    auto some_file_ends_with = [&](const std::string& wanted) {
        return std::any_of(m_python_index.begin(), m_python_index.end(), [&](const std::string& p) { return p == wanted || ends_with(p, "/" + wanted); });
    };
    // Whether some file of the repository could be the dotted module `a.b.c` run from some folder:
    // a/b/c.py, b/c.py or their packages. A module of one name (`-m pip`) or not written out always could.
    auto could_be_module = [&](const std::string& dotted) {
        std::vector<std::string> parts;
        for (std::size_t at = 0; at <= dotted.size();) {
            const std::size_t dot = std::min(dotted.find('.', at), dotted.size());
            parts.push_back(dotted.substr(at, dot - at));
            at = dot + 1;
        }
        const bool names = std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
            return !p.empty() && std::all_of(p.begin(), p.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
        });
        if (parts.size() < 2 || !names) return true;
        for (std::size_t k = 0; k + 2 <= parts.size(); ++k) {
            std::string tail;
            for (std::size_t j = k; j < parts.size(); ++j) tail += (tail.empty() ? "" : "/") + parts[j];
            for (const std::string& wanted : {tail + ".py", tail + "/__init__.py", tail + "/__main__.py"})
                if (some_file_ends_with(wanted)) return true;
        }
        return false;
    };
    for (const auto& f : files) {
        if (f.kind == FileKind::notebook) {
            if (f.facts && !f.facts->hosted_demo.empty())
                add(f.path, f.facts->hosted_demo, true);
            else
                add(f.path, "notebook");
        }
        if (!f.facts) continue;
        if (f.facts->script && !matches_any_glob(m_vocab.backup_files, base_name(f.path))) {
            const bool smoke = self_test(f.path);
            add(f.path, "__main__ block (line " + std::to_string(f.facts->script_line) + ")" +
                            (smoke ? std::string(" of a module of the project's package that nothing imports or runs: a self-test") : ""),
                smoke);
        }
        // A script with no __main__ block (Janus's generation_inference.py loads its model and calls
        // generate() at module level): at a checkout's top, imported by no module of the repository.
        if (!f.facts->script && f.facts->module_call_line > 0 && f.kind == FileKind::python && dir_of(f.path) == project_of(f.path) &&
            !imported.count(f.path) && !matches_any_glob(m_vocab.backup_files, base_name(f.path)))
            add(f.path, "a script: it calls code at module level (line " + std::to_string(f.facts->module_call_line) + ") and no module imports it");
        for (const auto& ref : f.facts->entry_refs) {
            const std::string where = f.path + ":" + std::to_string(ref.line);
            if (ref.documented_import) {
                documented.emplace_back(&ref, &f);
                continue;
            }
            std::optional<std::string> target;
            if (ref.module) {
                target = module_in_project(ref.target, f.path);
                if (!target) target = find_module(dir_of(f.path), ref.target);
            } else {
                // in the folder a `cd` entered first (from the file's folder, or the root's), then as written
                std::vector<std::string> candidates;
                if (!ref.cwd.empty())
                    candidates = {normalise_relative(join(dir_of(f.path), join(ref.cwd, ref.target))), normalise_relative(join(ref.cwd, ref.target))};
                candidates.push_back(normalise_relative(ref.target));
                candidates.push_back(normalise_relative(join(dir_of(f.path), ref.target)));
                // run from a folder above the file's (LLaMA-Adapter's llama_adapter_v2_multimodal7b/exps/finetune.sh
                // runs main_finetune.py of llama_adapter_v2_multimodal7b/, where docs/train.md runs it from)
                for (std::string up = dir_of(dir_of(f.path)); !up.empty(); up = dir_of(up))
                    candidates.push_back(normalise_relative(join(up, ref.target)));
                for (const std::string& candidate : candidates)
                    if (!candidate.empty() && m_python_index.count(candidate)) {
                        target = candidate;
                        break;
                    }
            }
            if (!target) {
                // A path no file of the repository ends with, whatever folder the command runs in.
                const std::string wanted = normalise_relative(ref.target);
                const bool could_be = wanted.empty() || wanted.find('$') != std::string::npos || some_file_ends_with(wanted);
                if (!ref.module && ends_with(wanted, ".py") && !could_be)
                    for (int line = ref.line; line <= std::max(ref.line, ref.end_line); ++line) m_missing_launches[{f.path, line}] = ref.target;
                // `torchrun ... -m src.open_clip_train.main` (ml-mobileclip's training configs, for open_clip
                // patched and installed beside it): a module of two or more names that no file of the
                // repository is, whatever folder it is run from (`a/b/c.py`, `b/c.py`, their packages).
                if (ref.module && f.kind != FileKind::pyproject && f.kind != FileKind::setup_cfg && f.kind != FileKind::python &&
                    !could_be_module(ref.target))
                    absent_modules.emplace_back(&ref, &f);
                continue;
            }
            // every line of a command continued with `\`: a finding may sit on any of them
            for (int line = ref.line; line <= std::max(ref.line, ref.end_line); ++line) m_launched[{f.path, line}] = *target;
            const bool console = f.kind == FileKind::pyproject || f.kind == FileKind::setup_cfg || f.kind == FileKind::python;
            add(*target, (console ? "console script in " : "run by ") + where);
            m_commanded[*target].insert(f.path);
        }
    }
    // ... unless the same command runs a script of the repository too (`python -m torch.distributed.run
    // --nproc_per_node 8 train.py`: the launcher is a module of torch).
    for (const auto& [ref, f] : absent_modules) {
        const int last = std::max(ref->line, ref->end_line);
        bool runs_own = false;
        for (int line = ref->line; line <= last && !runs_own; ++line) runs_own = m_launched.count({f->path, line}) > 0;
        if (!runs_own)
            for (int line = ref->line; line <= last; ++line) m_missing_launches[{f->path, line}] = ref->target;
    }
    // A repository whose commands run no script but some that are tooling by their file name alone
    // (rules/program.yaml tooling.sole_run_files: CRAFT-pytorch's README runs `python test.py
    // --trained_model=...`, an inference-only release) has no other program: they are its run. Then
    // the model module they import is the run's, and its own __main__ block a self-test.
    const bool other_commanded = std::any_of(m_summary.entry_points.begin(), m_summary.entry_points.end(),
                                             [&](const EntryPoint& e) { return !e.tooling && m_commanded.count(e.path); });
    if (!other_commanded)
        for (auto& e : m_summary.entry_points) {
            if (!e.tooling || !m_commanded.count(e.path) || folder_named(e.path, m_tooling_dirs) || e.why.rfind("run by ", 0) != 0) continue;
            if (!matches_any_glob(m_vocab.sole_run_files, base_name(e.path))) continue;
            e.tooling = false;
            e.why += ": the only script the repository's commands run";
        }
    // A library's public packages are entry points too: importing the package is how it is used. Not
    // those of a project copied into the repository (jukebox's apex/, with apex's own setup.py and
    // licence): the repository uses what it imports of them, no more.
    std::vector<std::string> declared_dirs;  // the project's declared top-level packages
    std::vector<std::string> component_dirs;  // packages of sub-projects that the code outside them imports
    for (const auto& path : m_python) {
        if (!ends_with(path, "/__init__.py") || is_tooling_path(path) || vendored_root(path)) continue;
        const std::string dir = dir_of(path);
        const std::string name = base_name(dir);
        const bool top = m_roots.count(dir_of(dir)) > 0;
        // by a manifest beside the package or above it (a src/ layout); one inside the package's own
        // folder builds a component of the application (stable-dreamfusion's gridencoder/setup.py,
        // which installs the encoder's compiled module for main.py), not a library of its own
        const std::string parent = dir_of(dir);
        bool declared_here = false;
        std::optional<std::string> nested_at;  // the folder of the sub-project that declares it, when none above does
        bool declared_at_root = false;
        for (const auto& f : files) {
            if (!f.facts) continue;
            const std::string at = dir_of(f.path);
            if (!at.empty() && at != parent && parent.compare(0, at.size() + 1, at + "/") != 0) continue;
            for (const auto& n : f.facts->project_names) {
                if (normalise_package(n) != normalise_package(name)) continue;
                declared_here = true;
                if (at.empty()) declared_at_root = true;
                else if (!nested_at || at.size() < nested_at->size()) nested_at = at;
            }
        }
        if (!top || !declared_here) continue;
        // A package of a sub-project (FastVideo's fastvideo-kernel/, with a pyproject of its own) that
        // the repository's own code outside that folder imports is a component of that code, not an
        // API of its own: it is reached as far as its importers reach it (FastVideo imports its
        // kernels only in the attention backends its CUDA platform picks).
        if (!declared_at_root && nested_at) {
            const std::string inside = *nested_at + "/";
            const bool imported_from_outside = std::any_of(m_edges.begin(), m_edges.end(), [&](const auto& from_edges) {
                const std::string& from = from_edges.first;
                if (from.compare(0, inside.size(), inside) == 0 || is_tooling_path(from) || vendored_root(from)) return false;
                return std::any_of(from_edges.second.begin(), from_edges.second.end(),
                                   [&](const Edge& e) { return e.to.compare(0, dir.size() + 1, dir + "/") == 0; });
            });
            if (imported_from_outside) {
                component_dirs.push_back(dir + "/");
                continue;
            }
        }
        add(path, std::string(kPackageApi) + " (" + name + " is the project's package)");
        declared_dirs.push_back(dir + "/");
    }
    // A module of the repository's own code that a README's Python code imports (GroundingDINO's
    // `from groundingdino.util.inference import load_model, predict`) is the API its users call, as a
    // package's __init__.py is, though the package never imports it and only demo scripts (tooling) do.
    for (const auto& [ref, f] : documented) {
        if (vendored_root(f->path)) continue;  // a copied project's own documents (Vim's det/docs/ of detectron2)
        const auto target = module_in_project(ref->target, f->path);
        if (!target || is_tooling_path(*target)) continue;
        // nor is a document's import of such a component (FastVideo's docs/attention/developer/index.md)
        if (std::any_of(component_dirs.begin(), component_dirs.end(), [&](const std::string& d) { return target->compare(0, d.size(), d) == 0; }))
            continue;
        add(*target, std::string(kPackageApi) + " (" + f->path + ":" + std::to_string(ref->line) + " imports it)");
    }
    // A project copied into the repository (RFdiffusion's env/SE3Transformer/, NVIDIA's, under its own
    // licence) brings its own programs: its QM9 training script, run by its own benchmark scripts, is
    // not the repository's run, which uses what it imports of the project. Such a script is tooling
    // unless a file outside the copy runs it.
    for (auto& e : m_summary.entry_points) {
        if (e.tooling || e.why.rfind(kPackageApi, 0) == 0) continue;
        const auto copied = vendored_root(e.path);
        if (!copied) continue;
        const std::string inside = *copied + "/";
        const auto by = m_commanded.find(e.path);
        const bool run_from_outside = by != m_commanded.end() && std::any_of(by->second.begin(), by->second.end(), [&](const std::string& from) {
                                          return from.compare(0, inside.size(), inside) != 0;
                                      });
        if (run_from_outside) continue;
        e.tooling = true;
        e.why += ": a program of " + inside + ", a project copied into the repository, that nothing outside it runs";
    }
    mark_sampling_entries();
    mark_side_programs(files, declared_dirs, options.readmes);
    // A script or a command that runs the code, not a package's API alone (a library's functions are called by its users).
    m_training_entries = std::any_of(m_summary.entry_points.begin(), m_summary.entry_points.end(),
                                     [](const EntryPoint& e) { return !e.tooling && e.why.rfind(kPackageApi, 0) != 0; });
    // In a library (no script runs it), a public subpackage is API as much as the package is: users
    // write `import nvdiffrast.torch as dr`, which the package's own __init__.py never imports, and
    // only the library's sample programs (tooling) do.
    if (!m_training_entries)
        for (const auto& path : m_python) {
            if (!ends_with(path, "/__init__.py") || is_tooling_path(path)) continue;
            const auto under = std::find_if(declared_dirs.begin(), declared_dirs.end(), [&](const std::string& d) { return path.compare(0, d.size(), d) == 0; });
            constexpr std::string_view init = "/__init__.py";
            if (under == declared_dirs.end() || path.size() == under->size() + init.size() - 1) continue;  // the package's own __init__.py
            const std::string inner = path.substr(under->size(), path.size() - under->size() - init.size());  // "torch"
            // one level down and public: deeper ones are reached from those (apex.contrib's
            // subpackages are extensions a default build leaves out)
            if (inner.front() == '_' || inner.find('/') != std::string::npos) continue;
            add(path, std::string(kPackageApi) + " (a public subpackage of " + base_name(under->substr(0, under->size() - 1)) + ")");
        }
    const bool any_training = std::any_of(m_summary.entry_points.begin(), m_summary.entry_points.end(), [](const EntryPoint& e) { return !e.tooling; });
    if (!any_training) {
        for (const auto& path : m_python) {
            if (is_tooling_path(path)) continue;
            // a package at a root, and a module beside it: PointTransformerV3's model.py, which its users
            // copy or import, beside its serialization/ package
            const bool package = ends_with(path, "/__init__.py") && m_roots.count(dir_of(dir_of(path)));
            const bool module = !ends_with(path, "__init__.py") && m_roots.count(dir_of(path)) && base_name(path).front() != '_';
            if (package || module) add(path, std::string(kPackageApi) + " (no script or console entry point found)");
        }
    }
    if (std::none_of(m_summary.entry_points.begin(), m_summary.entry_points.end(), [](const EntryPoint& e) { return !e.tooling; })) {
        m_summary.complete = false;
        m_summary.incomplete_reason = "no entry point found (no __main__ block, console script, launch script or package): every non-tooling file counts as core";
    }
    std::sort(m_summary.entry_points.begin(), m_summary.entry_points.end(), [](const EntryPoint& a, const EntryPoint& b) { return a.path < b.path; });
}

std::map<std::string, std::string> ProgramModel::importing_on_load(const std::map<std::string, std::string>& seeds) const {
    std::map<std::string, std::vector<std::string>> importers;  // imported -> files importing it on load
    for (const auto& [from, edges] : m_edges)
        for (const auto& e : edges)
            if (!e.lazy && e.guard == GuardKind::none && e.to != from) importers[e.to].push_back(from);
    std::map<std::string, std::string> out;
    for (const auto& [path, what] : seeds) out.emplace(path, "imports " + what);
    std::map<std::string, std::string> root = seeds;  // path -> the seed's package and site it inherits
    std::deque<std::string> queue;
    for (const auto& [path, why] : seeds) queue.push_back(path);
    while (!queue.empty()) {
        const std::string cur = queue.front();
        queue.pop_front();
        const auto it = importers.find(cur);
        if (it == importers.end()) continue;
        for (const auto& from : it->second) {
            if (!out.emplace(from, "imports " + cur + ", which needs " + root.at(cur) + " to load").second) continue;
            root.emplace(from, root.at(cur));
            queue.push_back(from);
        }
    }
    // And the helpers only such files use (boltz's tests/profiling.py, imported by nothing but
    // tests/test_kernels.py, which imports triton): a module whose every importer, by any import, cannot
    // load on a Mac runs nowhere else. Not an entry point, nor a tooling file by its name (test_*.py,
    // which pytest collects on its own).
    std::map<std::string, std::set<std::string>> all_importers;  // imported -> every file importing it
    for (const auto& [from, edges] : m_edges)
        for (const auto& e : edges)
            if (e.to != from) all_importers[e.to].insert(from);
    std::set<std::string> entries;
    for (const auto& e : m_summary.entry_points) entries.insert(e.path);
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [path, from] : all_importers) {
            if (out.count(path) || entries.count(path) || base_name(path) == "__init__.py" ||
                matches_any_glob(m_tooling_files, base_name(path)))
                continue;
            if (!std::all_of(from.begin(), from.end(), [&](const std::string& f) { return out.count(f) > 0; })) continue;
            const std::string& user = *from.begin();
            out.emplace(path, "is imported only by " + user + (from.size() > 1 ? " and " + std::to_string(from.size() - 1) + " more" : "") +
                                  ", which needs " + root.at(user) + " to load");
            root.emplace(path, root.at(user));
            grew = true;
        }
    }
    return out;
}

// Sampling scripts that train nothing (rules/program.yaml tooling.sampling_entry_words), and evaluation
// scripts whether they train or not (evaluation_entry_words), are not the training run where another
// entry is: EDM's generate.py and example.py, DINO's eval_knn.py and eval_linear.py, stable
// diffusion's scripts/img2img.py beside main.py. An entry of another framework (tooling.other_frameworks:
// ResNeSt's scripts/gluon/train.py imports mxnet, not torch) is tooling wherever it is.
void ProgramModel::mark_sampling_entries() {
    std::set<std::uint32_t> training_methods;
    for (const auto& m : m_vocab.guards.training_methods) training_methods.insert(name_hash(m));
    // Whether a word of the entry's file name is in `list`.
    auto named = [&](const EntryPoint& e, const std::vector<std::string>& list) {
        const auto words = name_words(e.path);
        return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return std::find(list.begin(), list.end(), w) != list.end(); });
    };
    // Whether the entry's file calls a training method; nullopt where nothing of it was read.
    auto calls_training = [&](const EntryPoint& e) -> std::optional<bool> {
        const auto f = m_facts.find(e.path);
        if (f == m_facts.end()) return std::nullopt;
        const auto& names = f->second->attribute_names;
        return std::any_of(names.begin(), names.end(), [&](std::uint32_t h) { return training_methods.count(h) > 0; });
    };
    auto not_training = [&](const EntryPoint& e) {
        if (named(e, m_vocab.guards.training_words)) return false;
        if (named(e, m_vocab.evaluation_entry_words)) return true;  // a linear probe trains, and is evaluation
        if (!named(e, m_vocab.sampling_entry_words)) return false;
        const auto calls = calls_training(e);
        return calls && !*calls;
    };
    // Another framework's program: its top imports one of tooling.other_frameworks, and neither it nor
    // any module of the repository it imports imports torch (score_sde_pytorch's main.py imports
    // tensorflow for its file helpers, and run_lib, which imports torch: a PyTorch program).
    auto imports_torch = [&](const std::string& path) {
        const auto it = m_facts.find(path);
        return it != m_facts.end() && std::any_of(it->second->imports.begin(), it->second->imports.end(), [](const ImportFact& imp) {
                   return imp.level == 0 && imp.module.substr(0, imp.module.find('.')) == "torch";
               });
    };
    auto other_framework = [&](const EntryPoint& e) -> std::optional<std::string> {
        const auto f = m_facts.find(e.path);
        if (f == m_facts.end() || e.why.rfind(kPackageApi, 0) == 0) return std::nullopt;
        std::optional<std::string> other;
        for (const auto& imp : f->second->imports) {
            const std::string top = imp.module.substr(0, imp.module.find('.'));
            if (!imp.lazy && imp.level == 0 && std::find(m_vocab.other_frameworks.begin(), m_vocab.other_frameworks.end(), top) != m_vocab.other_frameworks.end())
                other = top;
        }
        if (!other) return std::nullopt;
        std::set<std::string> seen{e.path};
        std::deque<std::string> queue{e.path};
        while (!queue.empty()) {
            const std::string cur = queue.front();
            queue.pop_front();
            if (imports_torch(cur)) return std::nullopt;
            if (const auto edges = m_edges.find(cur); edges != m_edges.end())
                for (const auto& edge : edges->second)
                    if (seen.insert(edge.to).second) queue.push_back(edge.to);
        }
        return other;
    };
    for (auto& e : m_summary.entry_points)
        if (!e.tooling)
            if (const auto other = other_framework(e)) {
                e.tooling = true;
                e.why += ": a program of another framework (it imports " + *other + ", not torch)";
            }
    // Whether an entry trains: its name says so, or it calls a training method. An inference-only
    // release (Janus: a chat CLI, a package API and generation scripts, no training code) has none, and
    // its generation scripts are its run.
    auto trains_itself = [&](const EntryPoint& e) {
        return named(e, m_vocab.guards.training_words) || calls_training(e).value_or(true);  // nothing read of it: it may
    };
    std::vector<bool> sampling(m_summary.entry_points.size(), false);
    bool trains = false;
    for (std::size_t i = 0; i < sampling.size(); ++i) {
        const EntryPoint& e = m_summary.entry_points[i];
        if (e.tooling) continue;
        // a package's API is what its users call, whatever its name says (groundingdino/util/inference.py)
        sampling[i] = e.why.rfind(kPackageApi, 0) != 0 && not_training(e);
        trains = trains || (!sampling[i] && trains_itself(e));
    }
    if (!trains) return;
    for (std::size_t i = 0; i < sampling.size(); ++i) {
        if (!sampling[i]) continue;
        m_summary.entry_points[i].tooling = true;
        m_summary.entry_points[i].why += ": a sampling script that calls no training method, or an evaluation script (another entry trains)";
    }
}

// A training entry in a sub-folder with a README of its own is a program of its own: litgpt's
// extensions/thunder/pretrain.py (Lightning Thunder with unsloth's Triton kernels) beside the litgpt
// package's command, moco's detection/train_net.py beside main_moco.py. What only such programs reach
// is one arm of a choice of program, not the repository's run: it is optional (alternative_branch),
// so a blocker there makes dual-track at most. This holds only beside a main program: a script at the
// top of the repository, a console script, or the declared package's __main__.py or a module of it
// that a command runs. Not a library's API alone, nor the self-test in a module's __main__ block
// (detectron2's datasets/coco.py). A repository of sub-projects alone (RWKV-LM's RWKV-v4 ... RWKV-v7;
// InternImage's classification/, detection/, ...) keeps them all as its training entries.
void ProgramModel::mark_side_programs(const std::vector<FileRecord>& files, const std::vector<std::string>& declared_dirs,
                                      const std::map<std::string, std::string>& readmes) {
    std::set<std::string> readme_dirs;
    for (const auto& f : files) {
        const std::string dir = dir_of(f.path);
        if (strncasecmp(base_name(f.path).c_str(), "readme", 6) == 0 && !dir.empty() && dir != project_of(f.path)) readme_dirs.insert(dir);
    }
    if (readme_dirs.empty()) return;
    std::map<std::string, std::map<std::string, std::string>> side;  // per checkout
    std::set<std::string> with_main;
    for (const auto& e : m_summary.entry_points) {
        if (e.tooling) continue;
        const std::string& project = project_of(e.path);
        const bool api = e.why.rfind(kPackageApi, 0) == 0;
        // A folder whose name is no identifier (torchreid/utils/GPU-Re-Ranking) holds scripts, not
        // modules of the package: nothing can import them by a dotted name.
        auto importable_below = [&](const std::string& d) {
            if (e.path.compare(0, d.size(), d) != 0) return false;
            const std::string rest = dir_of(e.path.substr(d.size()));
            std::size_t start = 0;
            while (start < rest.size()) {
                const std::size_t end = std::min(rest.find('/', start), rest.size());
                const std::string part = rest.substr(start, end - start);
                if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0])) ||
                    !std::all_of(part.begin(), part.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
                    return false;
                start = end + 1;
            }
            return true;
        };
        const bool in_package = api || std::any_of(declared_dirs.begin(), declared_dirs.end(), importable_below);
        std::string folder;
        if (!in_package)
            for (std::string dir = dir_of(e.path); !dir.empty() && dir != project; dir = dir_of(dir))
                if (readme_dirs.count(dir)) folder = dir;  // the outermost: extensions/thunder, not a folder inside it
        if (!folder.empty()) {
            side[project].emplace(e.path, folder);
            continue;
        }
        const bool top = dir_of(e.path) == project;
        // run by the README at the top (deep-person-reid's `python scripts/main.py`, README.rst:180)
        const std::string top_readme = "run by " + (project.empty() ? std::string() : project + "/") + "readme";
        const bool documented = e.why.size() > top_readme.size() && strncasecmp(e.why.c_str(), top_readme.c_str(), top_readme.size()) == 0 &&
                                e.why.find('/', top_readme.size()) > e.why.find(':', top_readme.size());
        const bool command = e.why.rfind("console script", 0) == 0 || ends_with(e.path, "/__main__.py") || documented ||
                             (in_package && !api && e.why.rfind("__main__ block", 0) != 0);
        if (top || command) with_main.insert(project);
    }
    for (auto& [project, entries] : side)
        if (with_main.count(project)) m_side_entries.insert(entries.begin(), entries.end());
    for (auto& e : m_summary.entry_points) {
        const auto it = m_side_entries.find(e.path);
        if (it == m_side_entries.end()) continue;
        e.why += "; a program of its own in " + it->second + "/ (with its own README), beside the main one";
        // One the repository's README never names is an add-on, not part of the documented work:
        // litgpt's extensions/thunder (its README links extensions/xla only), deep-person-reid's
        // torchreid/utils/GPU-Re-Ranking. What only it reaches is tooling.
        if (!readme_names_folder(readmes, project_of(e.path), it->second)) {
            e.tooling = true;
            e.why += "; the repository's README does not name it: an add-on, tooling";
        }
    }
    for (const auto& e : m_summary.entry_points)
        if (e.tooling) m_side_entries.erase(e.path);
}

bool ProgramModel::readme_names_folder(const std::map<std::string, std::string>& readmes, const std::string& project, const std::string& folder) const {
    const auto readme = readmes.find(project);
    if (readme == readmes.end()) return true;  // nothing says it is not documented
    const std::string rel = project.empty() ? folder : folder.substr(std::min(folder.size(), project.size() + 1));
    const std::string& text = readme->second;
    // as a path (`advanced/run.sh`, `](extensions/xla)`) or a folder to enter (`cd advanced`)
    for (std::size_t at = text.find(rel); at != std::string::npos; at = text.find(rel, at + 1)) {
        const char before = at == 0 ? ' ' : text[at - 1];
        const std::size_t end = at + rel.size();
        const char after = end < text.size() ? text[end] : '\n';
        if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '-') continue;
        if (after == '/' || after == ')' || after == '`' || after == '"' || after == '\'') return true;
        if (at >= 3 && text.compare(at - 3, 3, "cd ") == 0) return true;
    }
    return false;
}

std::vector<std::string> ProgramModel::chain_to(const std::string& path, const std::map<std::string, std::pair<std::string, int>>& pred) const {
    std::vector<std::string> chain{path};
    std::string cur = path;
    for (int guard = 0; guard < 64; ++guard) {
        auto it = pred.find(cur);
        if (it == pred.end() || it->second.first.empty()) break;
        // line 0: a launch script passes a config to this script on its command line
        chain.push_back(it->second.second > 0 ? it->second.first + ":" + std::to_string(it->second.second) : it->second.first);
        cur = it->second.first;
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
}

void ProgramModel::compute_reach() {
    std::vector<std::string> training, tooling;
    for (const auto& e : m_summary.entry_points) (e.tooling ? tooling : training).push_back(e.path);
    // Widest path: a file's level is the strongest over its chains of the weakest edge on each.
    for (int level = static_cast<int>(Level::core); level >= static_cast<int>(Level::optional_dead); --level) {
        std::map<std::string, std::pair<std::string, int>> pred;
        struct PathGuard {
            GuardKind kind = GuardKind::none;
            std::string note;
            bool side_program = false;  // the side program's own entry guard, no other on the way
        };
        std::map<std::string, PathGuard> guard_on_path;
        std::deque<std::string> queue;
        // a side program's entry is one arm of a choice of program: optional, never core
        for (const auto& e : training) {
            const auto side = m_side_entries.find(e);
            if (side != m_side_entries.end() && strength(GuardKind::alternative_branch) < level) continue;
            if (pred.emplace(e, std::make_pair(std::string(), 0)).second) queue.push_back(e);
            guard_on_path[e] = side == m_side_entries.end()
                                   ? PathGuard{}
                                   : PathGuard{GuardKind::alternative_branch,
                                               "run only as " + e + ", a program of its own in " + side->second + "/ beside the repository's main one", true};
        }
        while (!queue.empty()) {
            const std::string cur = queue.front();
            queue.pop_front();
            if (!m_reach.count(cur)) {
                FileReach r;
                r.level = static_cast<Level>(level);
                r.guard = guard_on_path[cur].kind;
                r.guard_note = guard_on_path[cur].note;
                r.side_program = guard_on_path[cur].side_program;
                r.chain = chain_to(cur, pred);
                m_reach[cur] = std::move(r);
            }
            auto it = m_edges.find(cur);
            if (it == m_edges.end()) continue;
            for (const auto& edge : it->second) {
                if (strength(edge.guard) < level || pred.count(edge.to)) continue;
                pred[edge.to] = {cur, edge.line};
                guard_on_path[edge.to] = edge.guard != GuardKind::none && strength(edge.guard) == level
                                             ? PathGuard{edge.guard, edge.guard_note + " (" + cur + ":" + std::to_string(edge.line) + ")"}
                                             : guard_on_path[cur];
                queue.push_back(edge.to);
            }
        }
    }
    // Tooling: test, benchmark and example files, and whatever only they import.
    std::deque<std::string> queue(tooling.begin(), tooling.end());
    for (const auto& path : m_python)
        if (is_tooling_path(path)) queue.push_back(path);
    std::set<std::string> seen(queue.begin(), queue.end());
    while (!queue.empty()) {
        const std::string cur = queue.front();
        queue.pop_front();
        if (!m_reach.count(cur)) m_reach[cur].level = Level::tooling;
        auto it = m_edges.find(cur);
        if (it == m_edges.end()) continue;
        for (const auto& edge : it->second)
            if (seen.insert(edge.to).second) queue.push_back(edge.to);
    }
    for (const auto& path : m_python) {
        if (m_reach.count(path)) continue;
        FileReach r;
        r.level = m_summary.complete ? Level::unreached : Level::core;
        if (!m_summary.complete) r.chain = {path};
        m_reach[path] = r;
    }
    for (const auto& [path, r] : m_reach) {
        if (!m_python_index.count(path)) continue;  // a config on a chain
        const int i = r.level == Level::core ? 0 : r.level == Level::tooling ? 2 : r.level == Level::unreached ? 3 : 1;
        ++m_summary.files[i];
    }
}

std::set<std::string> ProgramModel::imported_from(const std::string& path) const {
    std::set<std::string> reached{path};
    std::deque<std::string> queue{path};
    while (!queue.empty()) {
        const std::string cur = queue.front();
        queue.pop_front();
        const auto it = m_edges.find(cur);
        if (it == m_edges.end()) continue;
        for (const auto& edge : it->second)
            if (strength(edge.guard) >= static_cast<int>(Level::core) && reached.insert(edge.to).second) queue.push_back(edge.to);
    }
    return reached;
}

bool ProgramModel::imports_file(const std::string& from, const std::string& to) const {
    const auto it = m_edges.find(from);
    return it != m_edges.end() && std::any_of(it->second.begin(), it->second.end(), [&](const Edge& e) { return e.to == to; });
}

std::map<std::string, std::set<std::string>> ProgramModel::importers_of(const std::set<std::string>& paths) const {
    std::map<std::string, std::vector<std::string>> importers;  // imported -> files importing it
    for (const auto& [from, edges] : m_edges)
        for (const auto& e : edges)
            if (e.to != from) importers[e.to].push_back(from);
    std::map<std::string, std::set<std::string>> out;
    for (const auto& path : paths) {
        std::set<std::string>& found = out[path];
        std::deque<std::string> queue{path};
        while (!queue.empty()) {
            const std::string cur = queue.front();
            queue.pop_front();
            if (const auto it = importers.find(cur); it != importers.end())
                for (const auto& from : it->second)
                    if (from != path && found.insert(from).second) queue.push_back(from);
        }
    }
    return out;
}

bool ProgramModel::named_as_program(const std::string& path) const {
    const auto words = name_words(path);
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
        return std::find(m_vocab.program_words.begin(), m_vocab.program_words.end(), w) != m_vocab.program_words.end();
    });
}

void ProgramModel::find_programs() {
    for (const auto& e : m_summary.entry_points) {
        if (e.tooling || !m_commanded.count(e.path) || m_side_entries.count(e.path) || e.why.rfind(kPackageApi, 0) == 0) continue;
        // one that trains, serves or samples by its name (not a download script or a Slurm launcher)
        if (named_as_program(e.path)) m_programs.emplace_back(e.path, imported_from(e.path));
    }
}

std::optional<std::string> ProgramModel::program_without(const std::string& path) const { return program_without(path, nullptr); }

std::optional<std::string> ProgramModel::program_without(const std::string& path, int line) const {
    const auto use = m_import_uses.find({path, line});
    return program_without(path, use == m_import_uses.end() || !use->second.found ? nullptr : &use->second);
}

std::optional<std::string> ProgramModel::program_without(const std::string& path, const ImportUse* use) const {
    // Whether a program needs `path` (or, with `use`, the import of it that `use` describes).
    const auto needs = [&](const std::string& entry, const std::set<std::string>& files) {
        if (!files.count(path)) return false;
        if (!use || entry == path || use->at_load) return true;
        for (const auto& from : files) {
            const auto it = m_edges.find(from);
            if (it == m_edges.end()) continue;
            for (const auto& e : it->second) {
                if (e.to != path || strength(e.guard) < static_cast<int>(Level::core)) continue;
                if (!e.names) return true;
                for (const auto& n : *e.names)
                    if (use->users.count(n) || use->bound.count(n)) return true;
            }
        }
        return false;
    };
    std::set<std::string> with;  // what the programs that need `path` reach
    for (const auto& [entry, files] : m_programs)
        if (needs(entry, files)) with.insert(files.begin(), files.end());
    // Only when a program needs it: a file that only other entries reach may still be the repository's
    // run (Pointnet2_PyTorch's pointnet2_ops, reached from its package's __init__.py, no program's import).
    // Or when the entry its chain starts from is a script no command runs, named as a program is, and
    // the programs the repository's commands run share its code (KAIR's main_test_face_enhancement.py,
    // a __main__ block that builds the GPEN extension, beside the documented main_train_psnr.py and
    // main_test_swinir.py): those programs run without it.
    if (with.empty()) {
        const auto reach = m_reach.find(path);
        if (reach == m_reach.end() || reach->second.level != Level::core || reach->second.chain.empty()) return std::nullopt;
        const std::string entry = split_chain_step(reach->second.chain.front()).first;
        const auto e = std::find_if(m_summary.entry_points.begin(), m_summary.entry_points.end(), [&](const EntryPoint& x) { return x.path == entry; });
        if (e == m_summary.entry_points.end() || e->tooling || m_commanded.count(entry) || m_side_entries.count(entry) ||
            e->why.rfind("__main__ block", 0) != 0 || !named_as_program(entry))
            return std::nullopt;
        const std::set<std::string> files = imported_from(entry);
        if (!needs(entry, files)) return std::nullopt;
        with = files;
    }
    for (const auto& program : m_programs) {
        const std::string& entry = program.first;
        const std::set<std::string>& files = program.second;
        if (needs(entry, files) || !same_project(entry, path)) continue;
        // a program of the same code: it reaches an own module that a program needing `path` reaches
        if (std::any_of(files.begin(), files.end(), [&](const std::string& f) { return f != entry && m_python_index.count(f) && with.count(f); }))
            return entry;
    }
    return std::nullopt;
}

std::optional<std::pair<std::string, int>> ProgramModel::only_import_in_function(const std::string& path) const {
    std::optional<std::pair<std::string, int>> found;
    for (const auto& [from, edges] : m_edges)
        for (const auto& e : edges) {
            if (e.to != path || from == path) continue;
            if (!e.lazy || (found && *found != std::make_pair(from, e.line))) return std::nullopt;
            found = {from, e.line};
        }
    if (!found) return std::nullopt;
    // reached through it, not as a program of its own
    const FileReach r = reach_of(path);
    if (r.chain.size() < 2 || r.chain[r.chain.size() - 2] != found->first + ":" + std::to_string(found->second)) return std::nullopt;
    return found;
}

FileReach ProgramModel::reach_of(const std::string& path) const {
    auto it = m_reach.find(path);
    if (it != m_reach.end()) return it->second;
    FileReach r;  // not a Python file
    r.level = is_tooling_path(path) ? Level::tooling : Level::core;
    return r;
}

std::map<std::string, std::string> ProgramModel::cuda_extension_importers() const {
    std::map<std::string, std::string> out(m_loaded_on_import.begin(), m_loaded_on_import.end());
    for (const auto& e : m_extensions) {
        if (!e.fact.cuda || e.fact.cuda_optional) continue;
        for (const auto& site : e.imports) {
            // a setup script's own load() of a helper module builds it; nothing imports the script
            if (site.path == e.defined_in && base_name(site.path) == "setup.py") continue;
            if (site.guard == GuardKind::none && imports_on_load(site.path, site.line))
                out.emplace(site.path, "the CUDA extension " + e.fact.name + " (" + site.path + ":" + std::to_string(site.line) + ")");
        }
    }
    return out;
}

const ExtensionLink* ProgramModel::extension_defined_at(const std::string& path, int line) const {
    for (const auto& e : m_extensions)
        if (e.defined_in == path && e.fact.line == line) return &e;
    return nullptr;
}

const ExtensionLink* ProgramModel::extension_with_source(const std::string& path) const {
    for (const auto& e : m_extensions)
        if (std::find(e.sources.begin(), e.sources.end(), path) != e.sources.end()) return &e;
    // A header is no source of its own: it belongs with the sources beside it (flash-attention's
    // csrc/flash_attn/src/philox.cuh, which the flash_fwd_*.cu listed in that folder include).
    if (is_native_header(path)) {
        const std::string dir = dir_of(path);
        for (const auto& e : m_extensions)
            if (std::any_of(e.sources.begin(), e.sources.end(), [&](const std::string& s) { return dir_of(s) == dir; })) return &e;
    }
    // detectron2's `sources=glob(...)`: the one extension whose sources are computed owns the rest
    // (one module built by two setup scripts, as torchsparse's setup.py and cython_setup.py, is one)
    const ExtensionLink* computed = nullptr;
    for (const auto& e : m_extensions) {
        if (!e.fact.sources.empty() || !e.fact.cuda) continue;
        if (computed && computed->fact.name != e.fact.name) return nullptr;
        if (!computed) computed = &e;
    }
    return computed;
}

std::map<std::string, FileReach> ProgramModel::find_unbuilt_own_modules() const {
    std::map<std::string, FileReach> best;
    for (const auto& [dotted, sites] : m_external) {
        const auto dot = dotted.find('.');
        if (dot == std::string::npos || !is_own_package(dotted.substr(0, dot))) continue;
        bool known = false;
        for (const auto& root : roots_holding(dotted)) known = known || find_module(root, dotted).has_value();
        for (const auto& e : m_extensions) known = known || e.fact.name == dotted;
        if (known) continue;
        // Compiled modules go by names like _C, _ext, knn_cuda; `from pkg import helper` more often
        // names a function of pkg/__init__.py than a module.
        const std::string pkg = dotted.substr(0, dotted.rfind('.'));
        const std::string leaf = dotted.substr(dotted.rfind('.') + 1);
        // A CapWords name is a class (PEP 8), whatever its underscore: safari's `from
        // src.dataloaders.datasets.sc import _SpeechCommands`; `_C` is a module.
        const bool class_name = python::capwords_name(leaf);
        // A camelCase name is a function's or a variable's: wenet's `from wenet.models.paraformer.search
        // import _isAllAlpha` linked the TensorRT plugin kernels of runtime/gpu/ to its CLI (judged wrong in
        // a sample of the thirty-sixth and thirty-seventh holdouts' reports).
        const bool camel_case = std::adjacent_find(leaf.begin(), leaf.end(), [](char a, char b) {
                                    return std::islower(static_cast<unsigned char>(a)) && std::isupper(static_cast<unsigned char>(b));
                                }) != leaf.end();
        const bool compiled_name =
            !class_name && !camel_case && (leaf.front() == '_' || ends_with(leaf, "_cuda") || ends_with(leaf, "_ext") || ends_with(leaf, "_cpp"));
        // Bound by the package's __init__, other than by importing this very module there; or by a
        // module file that neither builds an extension nor imports from the repository's own packages:
        // `from .default import _C as cfg` takes YOLOP's yacs config, bound in lib/config/default.py. (A
        // module holds no modules, but may bind one: gsplat's cuda/_backend.py binds `_C` by `from gsplat
        // import csrc as _C` or a JIT load.)
        bool bound = false;
        for (const auto& root : roots_holding(pkg))
            if (auto init = find_module(root, pkg))
                bound = bound || (base_name(*init) != "__init__.py" && binds_no_own_module(*init)) ||
                        (binds_name(*init, leaf) && std::none_of(sites.begin(), sites.end(), [&](const ImportSite& s2) { return s2.path == *init; }));
        if (!compiled_name || bound) continue;
        for (const auto& site : sites) {
            if (!is_own_package(dotted.substr(0, dot), site.path)) continue;  // another checkout's package
            FileReach r = reach_of(site.path);
            if (!r.chain.empty()) r.chain.back() += ":" + std::to_string(site.line);
            const std::string project = m_projects.empty() ? std::string() : project_of(site.path);
            auto it = best.find(project);
            if (it == best.end() || r.level > it->second.level) best[project] = r;
        }
    }
    return best;
}

std::set<std::string> ProgramModel::find_native_products() const {
    std::set<std::string> out;
    if (!m_summary.complete) return out;
    std::set<std::string> with_native, with_module;
    // (not a project copied into the repository: a script repository's vendored CUTLASS is no product of its own)
    for (const auto& path : m_native)
        if (!is_tooling_path(path) && !vendored_root(path)) with_native.insert(m_projects.empty() ? std::string() : project_of(path));
    for (const auto& [path, r] : m_reach) {
        if (!m_python_index.count(path) || r.level <= Level::tooling) continue;
        // a module some entry imports: the checkout has a Python program of its own
        if (r.chain.size() > 1) with_module.insert(m_projects.empty() ? std::string() : project_of(path));
    }
    // or one that builds a Python extension for its own code (a demo's setup.py builds for the demo)
    for (const auto& e : m_extensions)
        if (!is_tooling_path(e.defined_in)) with_module.insert(m_projects.empty() ? std::string() : project_of(e.defined_in));
    for (const auto& project : with_native)
        if (!with_module.count(project)) out.insert(project);
    return out;
}

std::optional<std::string> ProgramModel::imported_only_outside(std::string_view package, const std::string& declared_in) const {
    const std::string folder = dir_of(declared_in);
    if (folder.empty() || folder == project_of(declared_in) || !m_dirs.count(folder)) return std::nullopt;
    auto it = m_package_importers.find(std::string(package));
    if (it == m_package_importers.end()) return std::nullopt;
    std::optional<std::string> outside;
    for (const auto& [path, line] : it->second) {
        if (!m_projects.empty() && project_of(path) != project_of(declared_in)) continue;
        if (path.compare(0, folder.size() + 1, folder + "/") == 0) return std::nullopt;
        if (!outside) outside = "declared for " + folder + "/, whose code never imports it (only " + path + ":" + std::to_string(line) + " does)";
    }
    return outside;
}

std::optional<FileReach> ProgramModel::reach_of_importers(std::string_view package, const std::string& declared_in) const {
    auto it = m_package_importers.find(std::string(package));
    if (it == m_package_importers.end()) return std::nullopt;
    std::optional<FileReach> best;
    for (const auto& [path, line] : it->second) {
        if (!m_projects.empty() && project_of(path) != project_of(declared_in)) continue;  // another repository's import
        FileReach r = reach_of(path);
        if (!r.chain.empty()) r.chain.back() += ":" + std::to_string(line);
        if (!best || r.level > best->level) best = r;
    }
    return best;
}

}  // namespace mpsport::program
