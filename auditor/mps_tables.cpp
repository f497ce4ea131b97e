#include "auditor/mps_tables.hpp"

#include <tree_sitter/api.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/paths.hpp"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace fs = std::filesystem;

namespace mpsport {

const std::vector<std::string>& forced_fallback_2_6_0() {
    static const std::vector<std::string> ops = {"aten::embedding_renorm_", "aten::linalg_svd", "aten::linalg_svd.U",
                                                 "aten::col2im", "aten::upsample_nearest3d.vec"};
    return ops;
}

namespace {

// "name.overload(args) -> ret" -> "aten::name.overload"
std::string op_key(const std::string& func) {
    const std::size_t paren = func.find('(');
    std::string name = func.substr(0, paren);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    return "aten::" + name;
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        std::size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        std::string part = s.substr(pos, comma - pos);
        part.erase(0, part.find_first_not_of(" \t"));
        part.erase(part.find_last_not_of(" \t") + 1);
        if (!part.empty()) out.push_back(part);
        pos = comma + 1;
    }
    return out;
}

struct Entry {
    std::set<std::string> keys;  // dispatch keys
    bool has_dispatch = false;
    std::string delegate;        // structured_delegate, as "aten::x.out"
    std::vector<std::string> autogen;
    bool sparse_mps = false;  // a SparseMPS or SparseCsrMPS kernel
};

MpsSupport support_of(const std::string& key, const std::map<std::string, Entry>& entries, int depth = 0) {
    auto it = entries.find(key);
    if (it == entries.end() || depth > 4) return MpsSupport::unknown;
    const Entry& e = it->second;
    if (e.keys.count("MPS")) return MpsSupport::native;
    if (!e.delegate.empty()) return support_of(e.delegate, entries, depth + 1);
    if (!e.has_dispatch) return MpsSupport::composite;  // CompositeImplicitAutograd
    for (const char* k : {"CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional", "CompositeImplicitAutograd"})
        if (e.keys.count(k)) return MpsSupport::composite;
    return MpsSupport::fallback;
}

std::string node_text(TSNode n, const std::string& src) { return src.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n)); }

std::string unquote(const std::string& s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'')) return s.substr(1, s.size() - 2);
    return s;
}

// The first assignment to `name` in common_mps.py, read with our own tree-sitter parser (never executed).
TSNode find_assignment(TSNode node, const std::string& name, const std::string& src) {
    if (std::string_view(ts_node_type(node)) == "assignment") {
        TSNode left = ts_node_child_by_field_name(node, "left", 4);
        if (!ts_node_is_null(left) && node_text(left, src) == name) return ts_node_child_by_field_name(node, "right", 5);
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) {
        TSNode found = find_assignment(ts_node_named_child(node, i), name, src);
        if (!ts_node_is_null(found)) return found;
    }
    return TSNode{};
}

void read_common_mps(const fs::path& path, MpsTable& table) {
    const std::string src = read_file(path);
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    TSTree* tree = ts_parser_parse_string(parser, nullptr, src.data(), static_cast<uint32_t>(src.size()));
    TSNode root = ts_tree_root_node(tree);
    TSNode xfail = find_assignment(root, "UNIMPLEMENTED_XFAILLIST", src);
    TSNode complex_ops = find_assignment(root, "SUPPORTED_COMPLEX_OPS", src);
    if (ts_node_is_null(xfail) || std::string_view(ts_node_type(xfail)) != "dictionary") {
        ts_tree_delete(tree);
        ts_parser_delete(parser);
        throw std::runtime_error(path.generic_string() + ": no UNIMPLEMENTED_XFAILLIST dictionary found");
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(xfail); ++i) {
        TSNode pair = ts_node_named_child(xfail, i);
        if (std::string_view(ts_node_type(pair)) != "pair") continue;
        const std::string key = unquote(node_text(ts_node_child_by_field_name(pair, "key", 3), src));
        TSNode value = ts_node_child_by_field_name(pair, "value", 5);
        std::vector<std::string> dtypes;
        if (std::string_view(ts_node_type(value)) == "list") {
            for (uint32_t k = 0; k < ts_node_named_child_count(value); ++k) {
                std::string d = node_text(ts_node_named_child(value, k), src);
                if (d.rfind("torch.", 0) == 0) d = d.substr(6);
                dtypes.push_back(d);
            }
        } else {
            dtypes.push_back("*");
        }
        table.unimplemented_xfail[key] = dtypes;
    }
    if (!ts_node_is_null(complex_ops))
        for (uint32_t i = 0; i < ts_node_named_child_count(complex_ops); ++i) {
            TSNode item = ts_node_named_child(complex_ops, i);
            if (std::string_view(ts_node_type(item)) == "string") table.complex_ops.insert(unquote(node_text(item, src)));
        }
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    // common_mps marks every op as an expected failure for torch.double and torch.cdouble.
    table.unsupported_dtypes = {"float64", "complex128"};
}

}  // namespace

MpsTable generate_mps_table(const TableSources& sources) {
    MpsTable table;
    table.torch_version = sources.torch_version;
    YAML::Node doc;
    try {
        doc = YAML::LoadFile(sources.native_functions.string());
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(sources.native_functions.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (!doc.IsSequence()) throw std::runtime_error(sources.native_functions.generic_string() + ": expected a list of op entries");
    std::map<std::string, Entry> entries;
    for (const auto& item : doc) {
        if (!item["func"]) continue;
        const std::string key = op_key(item["func"].as<std::string>());
        Entry e;
        if (const YAML::Node d = item["dispatch"]; d && d.IsMap()) {
            e.has_dispatch = true;
            for (const auto& kv : d)
                for (const auto& k : split_commas(kv.first.as<std::string>())) e.keys.insert(k);
            e.sparse_mps = e.keys.count("SparseMPS") || e.keys.count("SparseCsrMPS");
        }
        if (const YAML::Node s = item["structured_delegate"]) e.delegate = "aten::" + s.as<std::string>();
        if (const YAML::Node a = item["autogen"]) e.autogen = split_commas(a.as<std::string>());
        entries[key] = std::move(e);
    }
    for (const auto& [key, e] : entries) {
        const MpsSupport s = support_of(key, entries);
        table.ops[key] = s;
        if (e.sparse_mps) table.sparse_ops.insert(key.substr(0, key.find('.')));
        // autogen'd overloads (mostly .out) call the functional kernel they were generated from.
        for (const auto& a : e.autogen) table.ops.emplace("aten::" + a, s);
    }
    // RecordFunction reports names without overloads ("aten::add"): give a base name the best support
    // of any of its overloads, unless the yaml has an entry of exactly that name.
    std::map<std::string, MpsSupport> bases;
    for (const auto& [key, s] : table.ops) {
        const std::size_t dot = key.find('.');
        if (dot == std::string::npos) continue;
        auto [it, inserted] = bases.emplace(key.substr(0, dot), s);
        if (!inserted && static_cast<int>(s) < static_cast<int>(it->second)) it->second = s;
    }
    for (const auto& [base, s] : bases) table.ops.emplace(base, s);
    table.forced_fallback.insert(sources.forced_fallback.begin(), sources.forced_fallback.end());
    table.forced_fallback_known = sources.forced_fallback_known;
    if (sources.common_mps) read_common_mps(*sources.common_mps, table);
    else table.unsupported_dtypes = {"float64", "complex128"};
    return table;
}

// What SOURCES.md holds for one bundled version: its yaml always, common_mps.py and MPSFallback.mm's
// list only where the source was available.
static TableSources bundled_sources(const fs::path& data_dir, const std::string& version) {
    TableSources src;
    src.torch_version = version;
    src.native_functions = data_dir / ("native_functions-" + version + ".yaml");
    const fs::path common = data_dir / ("common_mps-" + version + ".py.txt");
    std::error_code ec;
    if (fs::exists(common, ec)) src.common_mps = common;
    if (version == "2.6.0") {
        src.forced_fallback = forced_fallback_2_6_0();
        src.forced_fallback_known = true;
    }
    return src;
}

std::vector<fs::path> generate_bundled_tables(const fs::path& data_dir, const fs::path& rules_dir) {
    std::vector<fs::path> written;
    for (const std::string& version : bundled_torch_versions()) {
        const TableSources src = bundled_sources(data_dir, version);
        const fs::path table = mps_table_path(rules_dir, version);
        write_file_atomically(table, mps_table_to_json(generate_mps_table(src)));
        written.push_back(table);
        const fs::path names = python_op_map_path(rules_dir, version);
        write_file_atomically(names, python_op_map_to_json(generate_python_op_map(src.native_functions, rules_dir / "mps" / "python-names.yaml", version)));
        written.push_back(names);
    }
    return written;
}

}  // namespace mpsport
