#include "analyzer/configs/data_readers.hpp"

#include <algorithm>

#include "core/paths.hpp"

namespace mpsport::configs {
namespace {

std::string dir_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}


std::string describe_load(const CheckpointLoad& l) {
    return l.call + "(" + (l.path.empty() ? "..." : "\"" + l.path + "\"") + (l.remap ? ", " + *l.remap : std::string()) + ")";
}

DataReader load_reader(const std::string& python, const CheckpointLoad& l, int line) {
    DataReader r;
    r.path = python;
    r.line = line;
    r.load = true;
    r.remap = l.remap;
    r.guard = l.guard;
    r.guard_note = l.guard_note;
    r.how = "loads it: " + describe_load(l);
    return r;
}

// from_pretrained("weights/base"): a file directly in that folder.
bool in_folder(const std::string& folder, const std::string& path) {
    std::string f = folder;
    while (!f.empty() && f.back() == '/') f.pop_back();
    const std::string dir = dir_of(path);
    return !f.empty() && (names_path(f, dir) || normalise_relative(f) == dir);
}

}  // namespace

namespace {

// The repository file `python -m dotted` runs from a launch script in `script_dir`: the module or the
// package's __main__.py, below the repository top or the script's folder, else below a source root
// (`src/pkg/train.py` for `-m pkg.train`, the shortest such path). "" when it is no file of ours
// (`-m torch.distributed.run`).
std::string module_file(const std::string& dotted, const std::string& script_dir, const std::set<std::string>& python_paths) {
    std::string rel = dotted;
    std::replace(rel.begin(), rel.end(), '.', '/');
    for (const std::string& suffix : {std::string(".py"), std::string("/__main__.py")}) {
        for (const std::string& base : {std::string(), script_dir}) {
            const std::string candidate = normalise_relative(base.empty() ? rel + suffix : base + "/" + rel + suffix);
            if (!candidate.empty() && python_paths.count(candidate)) return candidate;
        }
        const std::string tail = "/" + rel + suffix;
        std::string best;
        for (const auto& p : python_paths)
            if (p.size() > tail.size() && p.compare(p.size() - tail.size(), tail.size(), tail) == 0 && (best.empty() || p.size() < best.size())) best = p;
        if (!best.empty()) return best;
    }
    return {};
}

}  // namespace

std::vector<Launch> launches_with_paths(const std::vector<FileWithFacts>& files, const std::set<std::string>& python_paths) {
    std::vector<Launch> out;
    for (const auto& f : files) {
        for (const auto& ref : f.facts->entry_refs) {
            if (ref.path_args.empty() && ref.overrides.empty()) continue;
            const std::string via = *f.path + ":" + std::to_string(ref.line);
            if (ref.module) {
                const std::string file = module_file(ref.target, dir_of(*f.path), python_paths);
                if (!file.empty()) out.push_back({file, via, ref.path_args, ref.overrides});
                continue;
            }
            for (const std::string& candidate : {normalise_relative(ref.target), normalise_relative(dir_of(*f.path) + "/" + ref.target)}) {
                if (candidate.empty() || !python_paths.count(candidate)) continue;
                out.push_back({candidate, via, ref.path_args, ref.overrides});
                break;
            }
        }
    }
    return out;
}

std::vector<DataReader> launch_readers(const std::string& data_path, const std::vector<Launch>& launches) {
    std::vector<DataReader> out;
    for (const auto& l : launches)
        for (const auto& arg : l.args)
            if (names_path(arg, data_path)) {
                DataReader r;
                r.path = l.script;
                r.how = "run by " + l.via + " with " + arg;
                out.push_back(std::move(r));
                break;
            }
    return out;
}

std::vector<DataReader> checkpoint_readers(const std::string& checkpoint_path, const std::vector<PythonFile>& python,
                                           const std::vector<Launch>& launches) {
    std::vector<DataReader> out;
    for (const auto& p : python) {
        const PythonConfigFacts& f = *p.facts;
        std::size_t before = out.size();
        for (const auto& l : f.loads)
            if (!l.path.empty() && (l.folder ? in_folder(l.path, checkpoint_path) : names_path(l.path, checkpoint_path)))
                out.push_back(load_reader(*p.path, l, l.line));
        if (out.size() > before) continue;
        // A literal elsewhere (an argparse default, a constant): the loads of a variable in this file
        // are its loads; with none, the file only names it.
        const auto named = std::find_if(f.checkpoints.begin(), f.checkpoints.end(), [&](const PathRef& r) { return names_path(r.path, checkpoint_path); });
        if (named == f.checkpoints.end()) continue;
        for (const auto& l : f.loads)
            if (l.path.empty()) out.push_back(load_reader(*p.path, l, l.line));
        if (out.size() > before) continue;
        DataReader r;
        r.path = *p.path;
        r.line = named->line;
        r.guard = named->guard;
        r.guard_note = named->guard_note;
        r.how = "names it: \"" + named->path + "\"";
        out.push_back(std::move(r));
    }
    // A script run with the checkpoint as an argument loads it with its own load calls (once: a file
    // that names it too is already listed).
    for (DataReader& r : launch_readers(checkpoint_path, launches)) {
        if (std::any_of(out.begin(), out.end(), [&](const DataReader& known) { return known.path == r.path; })) continue;
        const auto script = std::find_if(python.begin(), python.end(), [&](const PythonFile& p) { return *p.path == r.path; });
        bool any = false;
        if (script != python.end())
            for (const auto& l : script->facts->loads)
                if (l.path.empty()) {
                    DataReader load = load_reader(r.path, l, l.line);
                    load.how = r.how + "; " + load.how;
                    out.push_back(std::move(load));
                    any = true;
                }
        if (!any) out.push_back(std::move(r));
    }
    return out;
}

}  // namespace mpsport::configs
