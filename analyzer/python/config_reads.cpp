#include "analyzer/python/config_reads.hpp"

#include <algorithm>

#include "analyzer/python/local_bindings.hpp"
#include "core/source_text.hpp"

namespace mpsport::python {
namespace {

int line_at(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }

bool ends_with_extension(const std::string& s, const std::vector<std::string>& extensions) {
    return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& e) {
        return s.size() > e.size() + 1 && s[s.size() - e.size() - 1] == '.' && s.compare(s.size() - e.size(), e.size(), e) == 0;
    });
}

// A path as written in one string literal (an f-string's holes kept); not a docstring or a message.
std::optional<std::string> path_literal(TSNode string, const ModuleFacts& facts) {
    auto value = string_literal(string, facts.source());
    if (!value || value->empty() || value->find_first_of("\n\"'") != std::string::npos) return std::nullopt;
    return value;
}

bool is_word(const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_word_char); }

// Inside the arguments of a call that writes (`torch.save(sd, "weights/last.pt")`, save_pretrained).
bool written_by_a_save(TSNode n, const ModuleFacts& facts) {
    for (TSNode cur = ts_node_parent(n); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
        if (is_type(cur, "call") && last_segment(facts.text(field(cur, "function"))).substr(0, 4) == "save") return true;
        if (is_type(cur, "expression_statement") || is_type(cur, "block")) return false;
    }
    return false;
}

// The string a path argument holds: a literal, a module-level constant, or a name its scope binds
// once to a literal (`ckpt = "weights/best.ckpt"` before `torch.load(ckpt)`).
std::string path_value(TSNode arg, const ModuleFacts& facts) {
    if (ts_node_is_null(arg)) return {};
    if (auto v = facts.string_value(arg)) return *v;
    if (!is_type(arg, "identifier")) return {};
    const auto bindings = bindings_of(arg, facts);
    if (bindings.size() != 1) return {};
    return string_literal(bindings.front().value, facts.source()).value_or("");
}

// Whether a chain of attributes and subscripts names a run config on its way: `cfg` in
// cfg.trainer.device, and `config` in MiniGPT-4's self.config.run_cfg.device (a runner keeps its config
// in an attribute).
bool names_config_object(TSNode n, const DataReaderVocabulary& vocabulary, const ModuleFacts& facts) {
    for (;;) {
        if (is_type(n, "attribute")) {
            if (listed(vocabulary.config_objects, facts.text(field(n, "attribute")))) return true;
            n = field(n, "object");
        } else if (is_type(n, "subscript")) {
            n = field(n, "value");
        } else {
            return is_type(n, "identifier") && listed(vocabulary.config_objects, facts.text(n));
        }
    }
}

void add_load(TSNode call, const CheckpointLoadCall& load, const ModuleFacts& facts, const GuardFinder& guards, configs::PythonConfigFacts& out) {
    // Where a load's path may be passed by keyword (torch.load's f, from_pretrained's first parameter).
    static const char* const kPathKeywords[] = {"f", "path", "checkpoint_path", "filename", "pretrained_model_name_or_path"};
    configs::CheckpointLoad l;
    l.call = load.call;
    l.line = line_at(call);
    l.folder = load.folder;
    TSNode path = positional_argument(call, 0);
    if (is_type(path, "list_splat") || is_type(path, "dictionary_splat")) path = TSNode{};
    for (const char* k : kPathKeywords)
        if (ts_node_is_null(path)) path = keyword_argument(call, k, facts);
    l.path = path_value(path, facts);
    if (!load.remap.empty()) {
        if (const TSNode v = keyword_argument(call, load.remap, facts); !ts_node_is_null(v)) {
            l.remap = load.remap + "=" + std::string(facts.text(v));
        } else if (load.remap_position > 0) {
            const TSNode p = positional_argument(call, static_cast<uint32_t>(load.remap_position));
            if (!ts_node_is_null(p) && !is_type(p, "list_splat") && !is_type(p, "dictionary_splat")) l.remap = std::string(facts.text(p));
        }
    }
    if (!l.remap && load.on_cpu) l.remap = "onto the CPU (" + load.call + "'s default)";
    const Guard g = guards.guard_of(call);
    l.guard = g.kind;
    l.guard_note = g.note;
    out.loads.push_back(std::move(l));
}

// `config_name="config"` beside a Hydra folder: in the same call, or assigned in the same block.
std::string hydra_name_beside(TSNode folder_site, const ModuleFacts& facts) {
    const TSNode parent = ts_node_parent(folder_site);
    for (uint32_t i = 0; !ts_node_is_null(parent) && i < ts_node_named_child_count(parent); ++i) {
        TSNode c = ts_node_named_child(parent, i);
        if (is_type(c, "expression_statement") && ts_node_named_child_count(c) > 0) c = ts_node_named_child(c, 0);
        const bool keyword = is_type(c, "keyword_argument");
        if (!keyword && !is_type(c, "assignment")) continue;
        if (facts.text(field(c, keyword ? "name" : "left")) != "config_name") continue;
        if (auto v = string_literal(field(c, keyword ? "value" : "right"), facts.source())) return *v;
    }
    return {};
}

}  // namespace

configs::PythonConfigFacts config_reads(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::set<std::string>& keys,
                                        const DataReaderVocabulary& vocabulary) {
    configs::PythonConfigFacts out;
    auto guarded = [&](TSNode n, int line, std::string path) {
        configs::PathRef ref{std::move(path), line};
        const Guard g = guards.guard_of(n);
        ref.guard = g.kind;
        ref.guard_note = g.note;
        return ref;
    };
    for_each_node(root, [&](TSNode n) {
        if (is_type(n, "string")) {
            const auto path = path_literal(n, facts);
            if (!path) return;
            if (ends_with_extension(*path, vocabulary.config_extensions)) out.files.push_back(guarded(n, line_at(n), *path));
            if (ends_with_extension(*path, vocabulary.checkpoint_extensions) && !written_by_a_save(n, facts))
                out.checkpoints.push_back(guarded(n, line_at(n), *path));
            return;
        }
        if (is_type(n, "keyword_argument") || is_type(n, "assignment")) {
            // A Hydra folder: config_path="conf" in a call, or assigned to a name of that spelling.
            const bool keyword = is_type(n, "keyword_argument");
            if (!listed(vocabulary.config_folder_keywords, facts.text(field(n, keyword ? "name" : "left")))) return;
            const auto folder = path_literal(field(n, keyword ? "value" : "right"), facts);
            if (!folder) return;
            const TSNode site = keyword ? n : (is_type(ts_node_parent(n), "expression_statement") ? ts_node_parent(n) : n);
            configs::PathRef ref = guarded(n, line_at(n), *folder);
            ref.hydra_name = hydra_name_beside(site, facts);
            out.directories.push_back(std::move(ref));
            return;
        }
        if (is_type(n, "subscript")) {  // cfg["device"]
            const auto key = string_literal(field(n, "subscript"), facts.source());
            if (key && is_word(*key) && keys.count(*key)) out.reads.push_back({*key, line_at(n), std::string(facts.text(n))});
            return;
        }
        if (is_type(n, "attribute")) {  // cfg.trainer.device, args.device
            const std::string attr(facts.text(field(n, "attribute")));
            if (!keys.count(attr)) return;
            if (names_config_object(field(n, "object"), vocabulary, facts)) out.reads.push_back({attr, line_at(n), std::string(facts.text(n))});
            return;
        }
        if (!is_type(n, "call")) return;
        const TSNode function = field(n, "function");
        if (is_type(function, "attribute") && facts.text(field(function, "attribute")) == "get") {  // cfg.get("device", ...)
            const TSNode arg = positional_argument(n, 0);
            const auto key = string_literal(arg, facts.source());
            if (key && is_word(*key) && keys.count(*key))
                out.reads.push_back({*key, line_at(n), std::string(facts.text(function)) + "(" + std::string(facts.text(arg))});
        }
        // A dotted load is matched on the name resolved through the imports (T.load with `import
        // torch as T`); a bare one on the last name, on any receiver (Net.load_from_checkpoint).
        const std::string qualname = facts.qualname(function);
        const std::string_view last = last_segment(facts.text(function));
        for (const auto& load : vocabulary.checkpoint_loads) {
            const bool dotted = load.call.find('.') != std::string::npos;
            if (dotted ? qualname == load.call : last == load.call) {
                add_load(n, load, facts, guards, out);
                break;
            }
        }
    });
    return out;
}

std::vector<std::string> config_read_literals(const std::set<std::string>& keys, const DataReaderVocabulary& vocabulary) {
    std::vector<std::string> out;
    for (const auto* extensions : {&vocabulary.config_extensions, &vocabulary.checkpoint_extensions})
        for (const auto& e : *extensions)
            for (const char* quote : {"\"", "'"}) out.push_back("." + e + quote);
    out.insert(out.end(), vocabulary.config_folder_keywords.begin(), vocabulary.config_folder_keywords.end());
    for (const auto& load : vocabulary.checkpoint_loads) out.push_back(std::string(last_segment(load.call)) + "(");
    for (const auto& k : keys)
        for (const std::string& spelled : {"\"" + k + "\"", "'" + k + "'", "." + k}) out.push_back(spelled);
    return out;
}

}  // namespace mpsport::python
