#include "analyzer/python/python_engine.hpp"

#include <algorithm>
#include <filesystem>
#include <future>
#include <map>

#include <nlohmann/json.hpp>

#include "analyzer/configs/config_link.hpp"
#include "analyzer/python/analyses.hpp"
#include "analyzer/python/config_reads.hpp"
#include "analyzer/python/float64_flow.hpp"
#include "analyzer/python/grad_context.hpp"
#include "analyzer/python/guards.hpp"
#include "analyzer/python/op_coverage.hpp"
#include "analyzer/python/program_facts.hpp"
#include "analyzer/python/query_set.hpp"
#include "analyzer/python/regions.hpp"
#include "core/hash.hpp"
#include "core/mps_tables.hpp"
#include "core/paths.hpp"

namespace mpsport::python {
namespace fs = std::filesystem;

namespace {

struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};

TSParser* thread_parser() {
    thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
        std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
        if (!ts_parser_set_language(p.get(), tree_sitter_python()))
            throw std::runtime_error("tree-sitter-python grammar ABI does not match the tree-sitter runtime");
        return p;
    }();
    return parser.get();
}

struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};

// A file parsed again, with its facts and guards, for the passes that read a file a second time:
// `read` gets the root, the facts and the guard finder; a file tree-sitter cannot parse gives
// `fallback`. `ranges`: only those parts of the file (regions_to_parse); empty, all of it.
template <class Read, class Out>
Out with_file(std::string_view text, const std::vector<TSRange>& ranges, const RuleCatalogue& catalogue, Out fallback, Read&& read) {
    TSParser* parser = thread_parser();
    if (!ranges.empty()) ts_parser_set_included_ranges(parser, ranges.data(), static_cast<uint32_t>(ranges.size()));
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!ranges.empty()) ts_parser_set_included_ranges(parser, nullptr, 0);
    if (!tree) return fallback;
    const TSNode root = ts_tree_root_node(tree.get());
    const ModuleFacts facts(root, text);
    const GuardFinder guards(catalogue.program().guards, facts, root);
    return read(root, facts, guards);
}

}  // namespace

struct PythonEngine::WholeFile {
    std::string text;
    std::unique_ptr<TSTree, TreeDeleter> tree;
    TSNode root{};
    std::optional<ModuleFacts> facts;
    std::optional<GuardFinder> guards;
    std::mutex use;  // one pass at a time: the guard finder fills its caches as it is asked
};

std::shared_ptr<PythonEngine::WholeFile> PythonEngine::whole_file(std::string_view text) const {
    if (m_kept_texts.empty()) return nullptr;
    const std::pair<std::uint64_t, std::size_t> key{content_hash(text), text.size()};
    if (!m_kept_texts.count(key)) return nullptr;  // another file the later passes read: its regions
    {
        const std::lock_guard<std::mutex> lock(m_whole_mutex);
        if (const auto found = m_whole.find(key); found != m_whole.end()) return found->second;
        if (m_whole_bytes + text.size() > kWholeBytes) return nullptr;
    }
    auto file = std::make_shared<WholeFile>();
    file->text = std::string(text);
    file->tree.reset(ts_parser_parse_string(thread_parser(), nullptr, file->text.data(), static_cast<uint32_t>(file->text.size())));
    if (!file->tree) return nullptr;
    file->root = ts_tree_root_node(file->tree.get());
    file->facts.emplace(file->root, file->text);
    file->guards.emplace(m_catalogue.program().guards, *file->facts, file->root);
    const std::lock_guard<std::mutex> lock(m_whole_mutex);
    const auto [at, inserted] = m_whole.emplace(key, file);  // or the one another thread made meanwhile
    if (inserted) m_whole_bytes += text.size();
    return at->second;
}

PythonEngine::PythonEngine(const RuleCatalogue& catalogue, const std::string& target_torch)
    : m_catalogue(catalogue), m_target_torch(target_torch) {
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "python") continue;
        if (!r.query.empty()) {
            m_query_rules.push_back(&r);
        } else {
            if (!find_analysis(r.analysis))
                throw RuleError(r.source.generic_string() + ": python.analysis '" + r.analysis + "' is not a registered analysis");
            m_analysis_rules.push_back(&r);
            m_needs_op_tables = m_needs_op_tables || needs_op_tables(r.analysis);
        }
    }
}

void PythonEngine::prepare(const std::optional<std::vector<std::string_view>>& texts) const {
    std::call_once(m_prepared, [&] { build(texts); });
}

void PythonEngine::build(const std::optional<std::vector<std::string_view>>& texts) const {
    const RuleCatalogue& catalogue = m_catalogue;
    if (texts)
        for (std::string_view text : *texts) m_kept_texts.emplace(content_hash(text), text.size());
    // The query rules the given texts name a trigger of (all of them when none are given).
    std::vector<const Rule*> compiled;
    m_query_slot.assign(m_query_rules.size(), std::string::npos);
    {
        std::vector<std::string> literals;
        std::vector<std::size_t> literal_rule;
        for (std::size_t r = 0; r < m_query_rules.size(); ++r)
            for (const auto& t : m_query_rules[r]->triggers) literals.push_back(t), literal_rule.push_back(r);
        std::vector<bool> named(m_query_rules.size(), !texts);
        if (texts) {
            const TriggerSet query_triggers(std::move(literals));
            for (std::string_view text : *texts)
                for (const auto& hit : query_triggers.find_each(text)) named[literal_rule[hit.second]] = true;
        }
        for (std::size_t r = 0; r < m_query_rules.size(); ++r)
            if (named[r]) m_query_slot[r] = compiled.size(), compiled.push_back(m_query_rules[r]);
    }
    // Compiling the queries is most of a small check's start-up: it runs on a thread of its own, beside
    // the op names (op_literals) and the trigger set below. The analysis of the first files does not
    // wait for the queries either: only running them does.
    m_queries = std::async(std::launch::async, [compiled] { return std::shared_ptr<const QuerySet>(std::make_unique<QuerySet>(compiled)); }).share();
    std::map<std::string, std::vector<std::string>> op_names;
    if (m_needs_op_tables) op_names = op_literals();
    std::map<std::string, std::size_t> literal_index;
    std::vector<std::string> literals;
    auto add_rule = [&](const Rule* r) {
        std::vector<std::size_t> idx;
        auto add_literal = [&](const std::string& t) {
            auto [it, inserted] = literal_index.emplace(t, literals.size());
            if (inserted) literals.push_back(t);
            idx.push_back(it->second);
        };
        for (const auto& t : r->triggers) add_literal(t);
        // The op-support rules run where a file names an op without an MPS kernel: their literals come
        // from the tables, so the pre-filter can never disagree with them.
        if (r->analysis == "mps-op-support")
            for (const auto& t : op_names[r->id]) add_literal(t);
        m_rule_triggers.push_back(std::move(idx));
    };
    for (const Rule* r : m_query_rules) add_rule(r);
    for (const Rule* r : m_analysis_rules) add_rule(r);
    // A call of an extension loader (rules/program.yaml extension_loaders) builds an extension: "get_plugin("
    std::vector<std::string> fact_literals = program_fact_literals();
    for (const auto& loader : m_catalogue.program().guards.extension_loaders) fact_literals.push_back(loader + "(");
    // `"target": "pkg.mod.Class"` in a dict of the code (extract_program_facts)
    for (auto& t : target_key_literals(m_catalogue.program().readers.config_target_keys)) fact_literals.push_back(std::move(t));
    for (const auto& t : fact_literals) {
        auto [it, inserted] = literal_index.emplace(t, literals.size());
        if (inserted) literals.push_back(t);
        m_fact_triggers.push_back(it->second);
        if (t == "import") m_import_literal = static_cast<std::uint32_t>(it->second);
    }
    m_config_keys = configs::rule_keys(catalogue);
    for (const auto& t : config_read_literals(m_config_keys, catalogue.program().readers)) {
        auto [it, inserted] = literal_index.emplace(t, literals.size());
        if (inserted) literals.push_back(t);
        m_config_triggers.push_back(it->second);
    }
    m_triggers = std::make_unique<TriggerSet>(std::move(literals));
}

PythonEngine::~PythonEngine() = default;

const OpTables& PythonEngine::op_tables() const {
    std::call_once(m_op_tables_once, [this] {
        m_op_tables = load_op_tables(m_catalogue.root(), m_target_torch);
        m_op_tables_loaded = true;
    });
    return *m_op_tables;
}

std::map<std::string, std::vector<std::string>> PythonEngine::op_literals() const {
    std::vector<const Rule*> rules;
    for (const Rule* r : m_analysis_rules)
        if (r->analysis == "mps-op-support") rules.push_back(r);
    // Loading the tables was a tenth of a pre-commit check. The names depend on the tables, the target
    // version, the rules' params and this build only (the key); with them kept, a check loads the
    // tables only when a file names one of these ops (analyze(), op_tables()).
    fs::path file;
    std::string key;
    if (!m_catalogue.cache_dir().empty()) {
        nlohmann::json params = nlohmann::json::array();
        for (const Rule* r : rules) params.push_back({r->id, r->params});
        key = hex64(content_hash(build_identity() + "|" + m_target_torch + "|" + hex64(op_tables_digest(m_catalogue.root())) + "|" + params.dump()));
        // one file per rules folder and target, replaced when its key changes: they never pile up
        file = m_catalogue.cache_dir() / ("op-names-" + hex64(fnv1a64(m_catalogue.root().generic_string() + "|" + m_target_torch)) + ".json");
        try {
            const nlohmann::json kept = nlohmann::json::parse(read_file(file));
            if (kept.at("key").get<std::string>() == key) return kept.at("names").get<std::map<std::string, std::vector<std::string>>>();
        } catch (const std::exception&) {
            // missing, damaged or made for other rules: computed again below
        }
    }
    std::map<std::string, std::vector<std::string>> names;
    for (const Rule* r : rules) names[r->id] = fallback_trigger_literals(op_tables(), *r);
    if (!file.empty()) {
        try {
            write_file_atomically(file, nlohmann::json{{"key", key}, {"names", names}}.dump());
        } catch (const std::exception&) {
            // a read-only or full cache folder costs the next run the time, nothing else
        }
    }
    return names;
}

namespace {

bool follows_float64(const Rule& rule) {
    auto it = rule.params.find("flow");
    return it != rule.params.end() && std::find(it->second.begin(), it->second.end(), "float64") != it->second.end();
}

// A module-level constant used in N places is one cause: one match at its definition, the uses
// as related locations (nanoGPT's `device = 'cuda'` is one edit, not twelve).
void merge_constant_uses(std::vector<NodeMatch>& matches, const ModuleFacts& facts) {
    std::map<std::pair<const Rule*, std::string>, std::size_t> first_use;
    std::vector<NodeMatch> out;
    for (auto& nm : matches) {
        TSNode def = is_type(nm.node, "identifier") ? facts.constant_definition(facts.text(nm.node)) : TSNode{};
        if (ts_node_is_null(def)) {
            out.push_back(std::move(nm));
            continue;
        }
        const std::string name(facts.text(nm.node));
        const auto key = std::make_pair(nm.match.rule, name);
        auto it = first_use.find(key);
        if (it != first_use.end()) {
            // The cause is guarded only if every use is; then by the guard that keeps it most alive.
            Match& merged = out[it->second].match;
            const auto strength = [](GuardKind g) { return g == GuardKind::none ? 3 : g == GuardKind::import_fallback ? 2 : 1; };
            if (strength(nm.match.guard) > strength(merged.guard)) {
                merged.guard = nm.match.guard;
                merged.guard_note = nm.match.guard_note;
            }
        }
        if (it == first_use.end()) {
            NodeMatch merged = nm;
            Match& m = merged.match;
            m.related.clear();
            m.begin = ts_node_start_byte(def);
            m.end = ts_node_end_byte(def);
            const auto value = facts.string_value(nm.node);
            m.captures["finding"] = "`" + name + "` (module constant" + (value ? " = \"" + *value + "\"" : std::string()) + ", line " +
                                    std::to_string(ts_node_start_point(def).row + 1) + ")";
            m.subject = name;
            merged.node = def;
            it = first_use.emplace(key, out.size()).first;
            out.push_back(std::move(merged));
        }
        out[it->second].match.related.push_back({{nm.match.begin, nm.match.end}, "used here"});
    }
    matches = std::move(out);
}

}  // namespace

std::size_t PythonEngine::compiled_query_rules() const {
    if (m_all_queries) return m_all_queries->rules().size();
    if (!m_queries.valid()) return 0;
    const auto ready = m_queries;  // each thread reads the shared state through its own copy
    return ready.get()->rules().size();
}

void PythonEngine::wait_for_queries() const {
    if (!m_queries.valid()) return;
    const auto ready = m_queries;
    ready.get();
}

const QuerySet& PythonEngine::queries_for(const std::vector<bool>& enabled, std::vector<bool>& slots) const {
    bool all_compiled = true;
    for (std::size_t r = 0; r < enabled.size(); ++r) all_compiled = all_compiled && (!enabled[r] || m_query_slot[r] != std::string::npos);
    if (!all_compiled) {
        std::call_once(m_every_query, [this] { m_all_queries = std::make_unique<QuerySet>(m_query_rules); });
        slots = enabled;
        return *m_all_queries;
    }
    const auto ready = m_queries;  // each thread reads the shared state through its own copy
    const QuerySet& queries = *ready.get();
    slots.assign(queries.rules().size(), false);
    for (std::size_t r = 0; r < enabled.size(); ++r)
        if (enabled[r]) slots[m_query_slot[r]] = true;
    return queries;
}

PythonEngine::Result PythonEngine::analyze(std::string_view text, bool full_parse) const {
    prepare();
    Result result;
    const auto hits = m_triggers->find_each(text);
    std::vector<bool> found(m_triggers->literals().size(), false);
    for (const auto& hit : hits) found[hit.second] = true;
    std::vector<bool> enabled(m_rule_triggers.size(), false);
    bool any = std::any_of(m_fact_triggers.begin(), m_fact_triggers.end(), [&](std::size_t lit) { return found[lit]; });
    const bool names_data = std::any_of(m_config_triggers.begin(), m_config_triggers.end(), [&](std::size_t lit) { return found[lit]; });
    any = any || names_data;
    for (std::size_t r = 0; r < m_rule_triggers.size(); ++r) {
        for (std::size_t lit : m_rule_triggers[r]) {
            if (found[lit]) {
                enabled[r] = true;
                any = true;
                break;
            }
        }
    }
    // Where the calls of a method are (a text fact: the file may be parsed only in part, or not at all)
    result.facts.attribute_names = attribute_names_of(text);
    result.facts.module_call_line = module_call_line_of(text, m_catalogue.program().script_setup_calls);
    if (!any) return result;

    // The file whole, kept for the passes after this one (a check), or the statements that can match
    const std::shared_ptr<WholeFile> whole = whole_file(text);
    std::unique_lock<std::mutex> in_use;
    std::unique_ptr<TSTree, TreeDeleter> tree;
    std::optional<ModuleFacts> own_facts;
    std::optional<GuardFinder> own_guards;
    TSNode root{};
    if (whole) {
        in_use = std::unique_lock<std::mutex>(whole->use);
        root = whole->root;
    } else {
        TSParser* parser = thread_parser();
        // "import" only says the file has facts; imports are always parsed, and as a region hit it
        // would pull in every statement that uses an imported name.
        std::vector<std::pair<std::size_t, std::uint32_t>> region_hits;
        region_hits.reserve(hits.size());
        for (const auto& hit : hits)
            if (hit.second != m_import_literal) region_hits.push_back(hit);
        // The argparse declarations too: an option off by default guards what it turns on (guards.cpp
        // off_by_default), wherever the parser is built.
        if (!region_hits.empty())
            for (std::size_t at = text.find("add_argument("); at != std::string_view::npos; at = text.find("add_argument(", at + 1))
                region_hits.emplace_back(at, UINT32_MAX);
        std::sort(region_hits.begin(), region_hits.end());
        const std::vector<TSRange> ranges = full_parse ? std::vector<TSRange>() : regions_to_parse(text, region_hits);
        if (!ranges.empty()) ts_parser_set_included_ranges(parser, ranges.data(), static_cast<uint32_t>(ranges.size()));
        tree.reset(ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
        if (!ranges.empty()) ts_parser_set_included_ranges(parser, nullptr, 0);
        if (!tree) return result;
        root = ts_tree_root_node(tree.get());
        own_facts.emplace(root, text);
        own_guards.emplace(m_catalogue.program().guards, *own_facts, root);
    }
    const ModuleFacts& facts = whole ? *whole->facts : *own_facts;
    const GuardFinder& guards = whole ? *whole->guards : *own_guards;
    std::vector<std::uint32_t> attribute_names = std::move(result.facts.attribute_names);
    const int module_call_line = result.facts.module_call_line;
    result.facts = extract_program_facts(root, facts, guards, m_catalogue.program().readers.config_target_keys);
    result.facts.attribute_names = std::move(attribute_names);
    result.facts.module_call_line = module_call_line;
    if (names_data) result.config_facts = config_reads(root, facts, guards, m_config_keys, m_catalogue.program().readers);

    std::vector<NodeMatch> query_matches;
    const std::vector<bool> query_enabled(enabled.begin(), enabled.begin() + static_cast<std::ptrdiff_t>(m_query_rules.size()));
    // A file parsed only for its program facts (its imports, a config it reads) names no query rule's
    // trigger: no pattern could report, so the query is not run.
    if (std::find(query_enabled.begin(), query_enabled.end(), true) != query_enabled.end()) {
        std::vector<bool> slots;
        const QuerySet& queries = queries_for(query_enabled, slots);
        queries.run(root, facts, slots, query_matches);
    }
    const FullTree full(facts.source());
    std::vector<NodeMatch> unguarded;
    for (auto& nm : query_matches) {
        Match& m = nm.match;
        if (m.rule->guard != "none") {
            Guard guard = guards.guard_of(nm.node);
            if (guard.mps_aware) continue;
            // an option's default (`add_argument("--backend", default="nccl")`) is guarded where
            // every read of the option is (doctr's `if distributed: init_process_group(backend=args.backend)`)
            if (guard.kind == GuardKind::none)
                if (auto read = option_default_guard(nm.node, facts, full, m_catalogue.program().guards)) guard = std::move(*read);
            if (m.rule->guard == "downgrade") {
                m.guard = guard.kind;
                m.guard_note = guard.note;
            }
        }
        if (follows_float64(*m.rule)) {
            CallOrigin origin;
            std::string via;
            const Float64Flow flow = float64_flow(nm.node, facts, &origin, &via);
            if (flow == Float64Flow::host) continue;  // made on the CPU and cast before any device
            if (!origin.function.empty()) m.origin = std::move(origin);
            if (!via.empty()) m.note = via;
            if (flow == Float64Flow::device_then_cpu) {
                m.impact = VerdictImpact::none;
                m.note = "made float64 on the device, then moved to the CPU: call .cpu() first, then .double()";
            } else if (const auto collective = collective_in_function(nm.node, facts, m_catalogue.program().guards.collective_calls)) {
                m.impact = VerdictImpact::none;
                m.note = "made for " + collective->first + " (line " + std::to_string(collective->second) +
                         "), which synchronises processes: a single device does not need this function to run";
            }
        }
        unguarded.push_back(std::move(nm));
    }
    merge_constant_uses(unguarded, facts);
    for (auto& nm : unguarded) result.matches.push_back(std::move(nm.match));

    bool wants_tables = false;
    for (std::size_t i = 0; i < m_analysis_rules.size(); ++i)
        wants_tables = wants_tables || (enabled[m_query_rules.size() + i] && needs_op_tables(m_analysis_rules[i]->analysis));
    const AnalysisInput input{root, facts, guards, m_catalogue, wants_tables ? &op_tables() : nullptr, full};
    for (std::size_t i = 0; i < m_analysis_rules.size(); ++i) {
        if (!enabled[m_query_rules.size() + i]) continue;
        const Rule& rule = *m_analysis_rules[i];
        find_analysis(rule.analysis)(input, rule, result.matches);
    }
    return result;
}

std::vector<PythonEngine::CallGrad> PythonEngine::gradients_at_calls(std::string_view text, const std::set<std::string, std::less<>>& names) const {
    TSParser* parser = thread_parser();
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!tree) return {};
    const TSNode root = ts_tree_root_node(tree.get());
    const ModuleFacts facts(root, text);
    const GradContextFinder finder(m_catalogue.program().guards, facts, root);
    std::vector<CallGrad> out;
    for (const auto& [use, ctx] : finder.uses_of(names))
        out.push_back({std::string(facts.text(use)), static_cast<int>(ts_node_start_point(use).row) + 1, static_cast<int>(ctx.grad), ctx.why});
    return out;
}

ImportUse PythonEngine::import_use(std::string_view text, int line) const {
    TSParser* parser = thread_parser();
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!tree) return {};
    const TSNode root = ts_tree_root_node(tree.get());
    return python::import_use(root, ModuleFacts(root, text), line);
}

std::map<std::string, RegistryChoice> PythonEngine::registry_choices(std::string_view text) const {
    return with_file(text, {}, m_catalogue, std::map<std::string, RegistryChoice>{},
                     [&](TSNode root, const ModuleFacts& facts, const GuardFinder&) { return python::registry_choices(root, facts); });
}

std::vector<ArgparseDeclaration> PythonEngine::argparse_declarations(std::string_view text) const {
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(thread_parser(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!tree) return {};
    const TSNode root = ts_tree_root_node(tree.get());
    return python::argparse_declarations(root, ModuleFacts(root, text));  // no guards asked: none built
}

std::vector<std::optional<std::string>> PythonEngine::options_off_elsewhere(std::string_view text, const std::vector<std::pair<int, int>>& at,
                                                                            const std::map<std::string, std::string, std::less<>>& elsewhere) const {
    std::vector<std::optional<std::string>> out(at.size());
    std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(thread_parser(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (!tree) return out;
    const TSNode root = ts_tree_root_node(tree.get());
    const ModuleFacts facts(root, text);
    GuardFinder guards(m_catalogue.program().guards, facts, root);
    guards.set_options_declared_elsewhere(&elsewhere);
    for (std::size_t i = 0; i < at.size(); ++i) {
        const TSPoint p{static_cast<uint32_t>(std::max(at[i].first - 1, 0)), static_cast<uint32_t>(std::max(at[i].second - 1, 0))};
        const TSNode node = ts_node_descendant_for_point_range(root, p, p);
        if (ts_node_is_null(node)) continue;
        if (Guard g = guards.guard_of(node); g.kind == GuardKind::off_by_default) out[i] = std::move(g.note);
    }
    return out;
}

std::vector<FunctionUses> PythonEngine::uses_of_functions(std::string_view text, const std::vector<FunctionQuery>& queries, bool full_parse) const {
    // Only the statements that can answer: those naming a function asked about or holding a line
    // asked about, the statements naming what those define (callers, up to the depth that guards are
    // looked for through callers), the imports, the module-level names they use, whatever mentions
    // a skip (a test file's own guard), and the command-line options it declares.
    std::vector<std::string> words;
    for (const auto& q : queries)
        for (const auto& n : q.names)
            if (!n.empty()) words.push_back(n[0] == '.' ? n.substr(1) : n);
    // A file asked only whether it calls or names some functions, and that never writes one of their
    // names as a word, answers "no use" without a parse: every call or use found is a node spelling one
    // (the bench tree's caller guards parsed 1,100 such files, 20 MB, each scan).
    const bool defines = std::any_of(queries.begin(), queries.end(), [](const FunctionQuery& q) { return q.defining; });
    auto hits = word_hits(text, words);
    if (!defines && hits.empty()) return std::vector<FunctionUses>(queries.size());
    const auto answer = [&](TSNode root, const ModuleFacts& facts, const GuardFinder& guards) {
        std::vector<FunctionUses> out;
        for (const auto& q : queries)
            out.push_back(q.methods ? python::uses_of_methods(root, facts, guards, q.names)
                                    : python::uses_of_functions(root, facts, guards, q.names, q.module, q.importer, q.defining, q.lines));
        return out;
    };
    if (const auto whole = whole_file(text)) {
        const std::lock_guard<std::mutex> in_use(whole->use);
        return answer(whole->root, *whole->facts, *whole->guards);
    }
    std::vector<TSRange> ranges;
    if (!full_parse) {
        std::set<int> lines;
        for (const auto& q : queries) lines.insert(q.lines.begin(), q.lines.end());
        // and the options a script declares at module level, which say what is off by default
        // (PyTorch-GAN's `parser.add_argument("--wass_flag", action='store_true')` for a call under
        // `if wass_metric:`)
        for (std::string_view skip : {"skip", "Skip", "add_argument("})
            for (std::size_t at = text.find(skip); at != std::string_view::npos; at = text.find(skip, at + skip.size())) hits.emplace_back(at, 0);
        int row = 1;
        for (std::size_t at = 0; at < text.size() && !lines.empty() && row <= *lines.rbegin(); ++row) {
            if (lines.count(row)) hits.emplace_back(at, 0);
            const std::size_t eol = text.find('\n', at);
            if (eol == std::string_view::npos) break;
            at = eol + 1;
        }
        std::sort(hits.begin(), hits.end());
        ranges = regions_to_parse(text, hits, true);
    }
    return with_file(text, ranges, m_catalogue, std::vector<FunctionUses>{}, answer);
}

std::vector<ImportedCall> PythonEngine::calls_through_imports(std::string_view text, const std::set<int>& import_lines) const {
    const auto answer = [&](TSNode root, const ModuleFacts& facts, const GuardFinder& guards) {
        return python::calls_through_imports(root, facts, guards, import_lines);
    };
    if (const auto whole = whole_file(text)) {
        const std::lock_guard<std::mutex> in_use(whole->use);
        return answer(whole->root, *whole->facts, *whole->guards);
    }
    return with_file(text, {}, m_catalogue, std::vector<ImportedCall>{}, answer);
}

}  // namespace mpsport::python
