// The Python static pass: tree-sitter-python, one combined query for every query rule, registered
// analyses for the rest, availability guards, trigger-literal pre-filter.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/configs/config_facts.hpp"
#include "analyzer/match.hpp"
#include "core/program_facts.hpp"
#include "core/rule_catalogue.hpp"
#include "core/trigger_set.hpp"

namespace mpsport::python {

class QuerySet;
struct OpTables;
struct ArgparseDeclaration;

class PythonEngine {
public:
    // Throws RuleError for a python rule whose analysis is not registered.
    // `target_torch` picks the MPS op tables (rules/mps/) of the op-support analyses.
    PythonEngine(const RuleCatalogue& catalogue, const std::string& target_torch);
    ~PythonEngine();

    // Compiles the rules' queries (on a thread of its own: see wait_for_queries), reads the op tables
    // and builds the trigger pre-filter, once; analyze() calls it first, and throws RuleError for an
    // invalid query. Apart from analyze(), the
    // engine needs none of it: a warm check, where every file comes from the cache, only asks
    // about calls, and never pays for the compilation (most of a small check's start-up).
    // `texts`, when given, are all the sources analyze() will most likely be asked about (a
    // pre-commit check's few files; none, for a check of a shell script): only the queries of rules
    // whose triggers they hold are compiled now (compiling costs about 1.5 ms a rule). A text that
    // wants another rule after all gets every query compiled then, so what is given changes no match.
    void prepare(const std::optional<std::vector<std::string_view>>& texts = std::nullopt) const;
    // How many query rules have their query compiled so far (after prepare()).
    std::size_t compiled_query_rules() const;
    // prepare() compiles the queries on a thread of their own while the first files are parsed (a
    // file waits for them only to run them): this waits for them, and throws the RuleError of a bad
    // query, which analyze() would have reported as each Python file's skip reason. Call it once the
    // files are analysed.
    void wait_for_queries() const;

    struct Result {
        std::vector<Match> matches;
        FileFacts facts;  // for the program model
        configs::PythonConfigFacts config_facts;  // the configs and checkpoints it names, reads and loads
    };
    // Matches of every python rule in `text` (Python source), and the file's program facts. Never
    // throws on bad source: tree-sitter recovers from syntax errors and the rest is still checked.
    // `full_parse`: parse the whole file, never only the regions that hold trigger literals.
    Result analyze(std::string_view text, bool full_parse = false) const;
    // The calls through the names the imports on `import_lines` bind (the whole file is parsed).
    std::vector<ImportedCall> calls_through_imports(std::string_view text, const std::set<int>& import_lines) const;
    // Whether gradients flow through each use of one of `names` (`f(x)`, `mod.f(x)`, `retry(f)`) in
    // `text` (the whole file is parsed): for the functions that hold a backward-only fallback.
    struct CallGrad {
        std::string name;
        int line = 0;
        int grad = 0;  // python::Grad
        std::string why;
    };
    std::vector<CallGrad> gradients_at_calls(std::string_view text, const std::set<std::string, std::less<>>& names) const;
    // The calls and other uses of some module-level functions of one module each in `text` (the whole
    // file is parsed once): python::uses_of_functions for each query.
    struct FunctionQuery {
        std::set<std::string> names;
        std::string module;
        std::string importer;
        bool defining = false;
        std::set<int> lines;
        bool methods = false;  // `names` are methods: their calls by name, on any object (python::uses_of_methods)
    };
    // `full_parse`: the whole file, not only the statements that can answer (--full-parse).
    std::vector<FunctionUses> uses_of_functions(std::string_view text, const std::vector<FunctionQuery>& queries, bool full_parse = false) const;

    // What the module in `text` does with the names its module-level import on `line` binds (a full parse).
    ImportUse import_use(std::string_view text, int line) const;
    // The names the module holds only as registry values (program_facts.hpp registry_choices).
    std::map<std::string, RegistryChoice> registry_choices(std::string_view text) const;
    // The argparse options the module in `text` declares (a full parse; guards.hpp).
    std::vector<ArgparseDeclaration> argparse_declarations(std::string_view text) const;
    // For each 1-based (line, column) of `text`: the guard's note ("off by default: --X") where the code
    // there runs only under an option off by default, `elsewhere` (destination -> flag: declared off by
    // default in other files) included (GuardFinder::set_options_declared_elsewhere); nullopt elsewhere.
    std::vector<std::optional<std::string>> options_off_elsewhere(std::string_view text, const std::vector<std::pair<int, int>>& at,
                                                                  const std::map<std::string, std::string, std::less<>>& elsewhere) const;
    // Whether the op tables were loaded: only where a file named an op they list, or where their
    // names were not kept beside the rules cache (op_literals()).
    bool op_tables_loaded() const { return m_op_tables_loaded; }

private:
    void build(const std::optional<std::vector<std::string_view>>& texts) const;  // prepare()'s work

    // A check of a few files (prepare() given their texts): each of those files is parsed whole once,
    // with its facts and guards, for every pass that reads it (the analysis, the calls through
    // extensions, the callers' guards), up to kWholeBytes of text; the other files those passes read,
    // and every file of a scan of a tree, are parsed in regions for each pass. nullptr where a file is
    // not kept so.
    struct WholeFile;
    static constexpr std::size_t kWholeBytes = std::size_t{4} << 20;
    mutable std::set<std::pair<std::uint64_t, std::size_t>> m_kept_texts;  // (content hash, size) of prepare()'s texts
    mutable std::mutex m_whole_mutex;
    mutable std::size_t m_whole_bytes = 0;
    mutable std::map<std::pair<std::uint64_t, std::size_t>, std::shared_ptr<WholeFile>> m_whole;
    std::shared_ptr<WholeFile> whole_file(std::string_view text) const;

    const RuleCatalogue& m_catalogue;
    std::string m_target_torch;
    std::vector<const Rule*> m_query_rules;
    std::vector<const Rule*> m_analysis_rules;
    bool m_needs_op_tables = false;
    // Built by prepare(), once; read-only after.
    mutable std::once_flag m_prepared;
    mutable std::shared_future<std::shared_ptr<const QuerySet>> m_queries;
    // Index of each query rule in m_queries->rules(), or npos when prepare() left it out.
    mutable std::vector<std::size_t> m_query_slot;
    mutable std::once_flag m_every_query;  // the fallback: all of them
    mutable std::unique_ptr<QuerySet> m_all_queries;
    // The queries to run for the query rules `enabled` says a file names, and their flags in its order.
    const QuerySet& queries_for(const std::vector<bool>& enabled, std::vector<bool>& slots) const;
    mutable std::unique_ptr<TriggerSet> m_triggers;
    // Loaded on first use (op_tables()): a file that names no op without an MPS kernel never needs them.
    mutable std::once_flag m_op_tables_once;
    mutable std::atomic<bool> m_op_tables_loaded{false};
    mutable std::unique_ptr<OpTables> m_op_tables;
    const OpTables& op_tables() const;
    // Each op-support rule's trigger literals (fallback_trigger_literals), through a file beside the
    // rules cache when there is one.
    std::map<std::string, std::vector<std::string>> op_literals() const;
    // For each rule (query rules first, then analysis rules): indexes into m_triggers' literals.
    mutable std::vector<std::vector<std::size_t>> m_rule_triggers;
    mutable std::vector<std::size_t> m_fact_triggers;  // literals that make a file worth reading for its facts
    mutable std::set<std::string> m_config_keys;         // the keys the config rules look at
    mutable std::vector<std::size_t> m_config_triggers;  // literals of the configs and checkpoints a file may name
    mutable std::uint32_t m_import_literal = UINT32_MAX;
};

}  // namespace mpsport::python
