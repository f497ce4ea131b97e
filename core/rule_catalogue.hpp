// Loads and validates the rule catalogue from a rules/ folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rule.hpp"

namespace mpsport {

class RuleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class RuleCatalogue {
public:
    // Reads every rules/<family>/<id>.yaml, rules/packages/*.yaml and rules/program.yaml. Throws RuleError naming the
    // file and the field on the first malformed rule.
    static RuleCatalogue load(const std::filesystem::path& rules_dir);
    // What load(rules_dir).digest() is, from the files' bytes alone (nothing parsed or checked): a
    // warm scan asks its memo with it before it loads the rules. Throws RuleError when there is no
    // such folder, and what read_file throws for an unreadable file.
    static std::uint64_t digest_of(const std::filesystem::path& rules_dir);
    // load(), through a file in `cache_dir` that keeps the loaded catalogue (one per rules folder and
    // build of mpsport, rule_catalogue_cache.cpp): the file serves while the rule files, the schemas
    // and the build are those it was made from; otherwise, or when it is missing or damaged, the
    // rules are loaded and checked from their YAML and the file is written again. Parsing and
    // checking the YAML was a third of a pre-commit check. A cache that cannot be written changes
    // nothing but the time.
    static RuleCatalogue load_cached(const std::filesystem::path& rules_dir, const std::filesystem::path& cache_dir);

    const std::vector<Rule>& rules() const { return m_rules; }
    const std::vector<PackageInfo>& packages() const { return m_packages; }
    const ProgramVocabulary& program() const { return m_program; }
    const Rule* find(std::string_view id) const;
    // The entry whose top-level module is `import_name` (exact), or nullptr.
    const PackageInfo* find_import(std::string_view import_name) const;
    // The entry another library loads when given this keyword or callee (PackageInfo::used_through).
    const PackageInfo* find_used_through(std::string_view name) const;
    // The entry naming this distribution (PEP 503-normalised, '*' patterns, and `name[extra]`
    // entries for the given extras), or nullptr.
    const PackageInfo* find_distribution(std::string_view name, const std::vector<std::string>& extras = {}) const;
    const std::filesystem::path& root() const { return m_root; }
    // Changes whenever any rule or package file changes: part of the scan cache key.
    std::uint64_t digest() const { return m_digest; }
    // Whether load_cached served it from its cache file (for --timings and the tests).
    bool from_cache() const { return m_from_cache; }
    // The folder load_cached keeps it in (empty after load()): what the engines derive from the
    // rules alone may be kept there too (PythonEngine's op names).
    const std::filesystem::path& cache_dir() const { return m_cache_dir; }

    // Keep only the given rule ids (for tests and `--select`); unknown ids throw RuleError.
    void select(const std::vector<std::string>& ids);

private:
    friend struct CatalogueFields;  // rule_catalogue_cache.cpp
    std::vector<Rule> m_rules;
    std::vector<PackageInfo> m_packages;
    ProgramVocabulary m_program;
    std::filesystem::path m_root;
    std::uint64_t m_digest = 0;
    bool m_from_cache = false;
    std::filesystem::path m_cache_dir;
};

// Where the rules are: --rules, $MPSPORT_RULES, <exe>/../share/mpsport/rules, the source tree.
std::filesystem::path locate_rules_dir(const std::optional<std::filesystem::path>& explicit_dir);

}  // namespace mpsport
