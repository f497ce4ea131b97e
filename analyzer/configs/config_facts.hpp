// The data files a Python file reads, as the code names them: run configurations (YAML, JSON,
// TOML; Hydra config folders) with the keys it reads from them, and checkpoints with the calls that
// load them. Taken from each Python file's syntax tree (python/config_reads.hpp; cached with its
// outcome); joined with the config and checkpoint files after the scan (config_link, data_readers).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/rule.hpp"

namespace mpsport::configs {

struct KeyRead {
    std::string key;   // the leaf key read: cfg["device"], cfg.get("device"), cfg.trainer.device -> device
    int line = 0;
    std::string text;  // the expression as written, for the message
};

// A path as the code writes it, and the line that writes it.
struct PathRef {
    std::string path;  // "configs/base.yaml", "configs/{name}.yaml" (f-string holes kept), "conf" (a folder)
    int line = 0;
    // A Hydra folder's primary config, `config_name="config"` beside `config_path="conf"`: empty
    // when none is given (then every config below the folder counts as read).
    std::string hydra_name = {};
    GuardKind guard = GuardKind::none;  // the guard the literal sits under (a device check, ...)
    std::string guard_note = {};
};

// A call that loads a checkpoint (rules/program.yaml data_readers.checkpoint_loads).
struct CheckpointLoad {
    std::string call;                  // the vocabulary's name of the call: "torch.load"
    std::string path;                  // the path argument when it is a literal (or a constant bound to one); "" otherwise
    int line = 0;
    std::optional<std::string> remap;  // the remap argument as written (map_location="cpu"); nullopt: not given
    bool folder = false;               // `path` is a folder holding the weights (from_pretrained)
    GuardKind guard = GuardKind::none;  // the guard the call sits under
    std::string guard_note;
};

struct PythonConfigFacts {
    std::vector<PathRef> files;        // config files named by a literal
    std::vector<PathRef> directories;  // Hydra config_path="conf"
    std::vector<KeyRead> reads;        // only of the keys some config rule looks at
    std::vector<PathRef> checkpoints;  // checkpoint files named by a literal (a load's argument, an argparse default)
    std::vector<CheckpointLoad> loads;
    bool empty() const { return files.empty() && directories.empty() && reads.empty() && checkpoints.empty() && loads.empty(); }
};

// The facts of Python source text, parsed whole with tree-sitter (the scan takes them from the tree
// it already has: PythonEngine::analyze); `keys` are the config keys the rules care about (every
// config rule's `keys`), `vocabulary` how files are named and loaded, `guards` what guards a site.
PythonConfigFacts python_config_facts(std::string_view text, const std::set<std::string>& keys, const DataReaderVocabulary& vocabulary,
                                      const GuardVocabulary& guards = {});

// The Hydra folder (as written, and resolved against `config_path`: "conf" -> "src/conf") through
// which a Python file refers to the config file `config_path`; nullopt when it does not.
struct HydraRef {
    const PathRef* folder;
    std::string resolved;  // the folder's path in the repository, '/'-terminated
};
std::optional<HydraRef> hydra_folder_of(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path);

// The line at which a Python file at `python_path` naming `facts` refers to the config file
// `config_path` (both relative to the scanned root); nullopt if it does not. A literal path matches
// the end of the config's path; an f-string hole matches one path segment; a Hydra folder matches
// any config below it.
std::optional<int> refers_to(const PythonConfigFacts& facts, const std::string& python_path, const std::string& config_path);

// A Python file of the scan and its facts (both owned elsewhere).
struct PythonFile {
    const std::string* path;
    const PythonConfigFacts* facts;
};

// Every config file name the Python files write, indexed once per scan by the name's last segment
// (which a file's name must equal unless it holds a wildcard): finding a config's readers then looks
// at the few literals that can name it, not at every literal of every file (a scan of 23 repositories
// spent a tenth of its warm time there). Gives what refers_to() gives, file by file.
class NamedFiles {
public:
    // `python` and what it points to must outlive this index.
    explicit NamedFiles(const std::vector<PythonFile>& python);
    // (index into the files given, line) of each file that names `path`, in the files' order.
    std::vector<std::pair<std::size_t, int>> readers(const std::string& path) const;

private:
    struct Literal {
        std::size_t file, index;
        int line;
        std::string glob;
    };
    const std::vector<PythonFile>& m_python;
    std::unordered_map<std::string, std::vector<Literal>> m_by_name;
    std::vector<Literal> m_wild;
};

// Whether a path as code writes it (a literal, an f-string with holes, a glob) names `path`, a file
// of the repository: the whole path, or its tail after a '/'.
bool names_path(const std::string& written, const std::string& path);

}  // namespace mpsport::configs
