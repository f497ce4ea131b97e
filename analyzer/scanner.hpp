// The static pass over a repository: walk, read, pre-filter, dispatch each file to its engine,
// in parallel, with a content-hash cache. One bad file never stops a scan: it is listed as skipped.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "core/mps_tables.hpp"
#include "core/program_facts.hpp"
#include "core/rule_catalogue.hpp"
#include "core/scan_result.hpp"
#include "core/walker.hpp"

namespace mpsport {

namespace python { class PythonEngine; }
namespace manifests { class ManifestEngine; }

struct ScanOptions {
    WalkOptions walk;
    unsigned jobs = 0;                             // 0: one per core
    std::optional<std::filesystem::path> cache_dir;  // nullopt: no cache
    // The roots are a few files of the repository at `base` (check): the cache keeps every other
    // file's entry, and the program model reads their facts from it.
    bool partial = false;
    std::vector<std::string> entries;  // --entry: the program model's entry points, relative to base
    // Whether to read base/.mpsport.toml (entry points and tooling folders of the repository).
    bool project_config = true;
};


struct FileOutcome {
    std::vector<Finding> findings;
    FileFacts facts;
    std::optional<std::string> skip_reason;
    std::size_t lines = 0;
};

class Scanner {
public:
    // `target_torch`: the PyTorch version whose MPS op tables (rules/mps/) the op-support rules read.
    explicit Scanner(const RuleCatalogue& catalogue, std::string target_torch = kDefaultTargetTorch);
    ~Scanner();

    ScanResult scan(const std::filesystem::path& base, const std::vector<std::filesystem::path>& roots,
                    const ScanOptions& options) const;
    // One file's findings from its text (no walking, no cache), weighed as if the file were core:
    // what `scan FILE` of a lone file reports. Used by tests and the fixture runner.
    FileOutcome scan_text(const std::string& path, FileKind kind, std::string text) const;

private:
    // One file's raw findings and facts, before the program model weighs them (what the cache keeps).
    FileOutcome analyze_file(const std::string& path, FileKind kind, std::string text) const;
    // The engines are built on first use: compiling the rules' queries is most of a warm scan's
    // cost when every file comes from the cache. Throws RuleError for a broken rule.
    void build_engines() const;

    const RuleCatalogue& m_catalogue;
    std::string m_target_torch;
    mutable std::once_flag m_engines_once;
    mutable std::unique_ptr<python::PythonEngine> m_python;
    mutable std::unique_ptr<manifests::ManifestEngine> m_manifests;
};

}  // namespace mpsport
