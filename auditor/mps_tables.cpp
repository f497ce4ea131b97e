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

std::string_view to_string(MpsSupport s) {
    switch (s) {
        case MpsSupport::native: return "native";
        case MpsSupport::composite: return "composite";
        case MpsSupport::fallback: return "fallback";
        case MpsSupport::unknown: return "unknown";
    }
    return "unknown";
}

static MpsSupport parse_support(const std::string& s) {
    if (s == "native") return MpsSupport::native;
    if (s == "composite") return MpsSupport::composite;
    if (s == "fallback") return MpsSupport::fallback;
    return MpsSupport::unknown;
}

const std::vector<std::string>& forced_fallback_2_6_0() {
    static const std::vector<std::string> ops = {"aten::embedding_renorm_", "aten::linalg_svd", "aten::linalg_svd.U",
                                                 "aten::col2im", "aten::upsample_nearest3d.vec"};
    return ops;
}

MpsSupport MpsTable::lookup(const std::string& op) const {
    if (forced_fallback.count(op)) return MpsSupport::fallback;
    auto it = ops.find(op);
    if (it != ops.end()) return it->second;
    const std::size_t dot = op.find('.');
    if (dot != std::string::npos) {
        if (forced_fallback.count(op.substr(0, dot))) return MpsSupport::fallback;
        it = ops.find(op.substr(0, dot));
        if (it != ops.end()) return it->second;
    }
    return MpsSupport::unknown;
}

// Kernels of one vendor library that the dispatcher picks because of the backend the step ran on
// (cuDNN batch norm on CUDA, oneDNN convolutions on the CPU, FlashAttention for SDPA, ...). On MPS the
// same Python call reaches the op's MPS implementation instead, so they say nothing about MPS support.
static bool backend_specific(const std::string& op) {
    static const std::vector<std::string> prefixes = {
        "aten::cudnn_", "aten::_cudnn_", "aten::miopen_", "aten::_miopen_", "aten::mkldnn_", "aten::_mkldnn_",
        "aten::_nnpack_", "aten::_flash_attention_", "aten::_efficient_attention_", "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention", "aten::_fused_sdp_choice",
        "aten::_cufft_", "aten::_use_cudnn_", "aten::_nested_"};
    for (const auto& p : prefixes)
        if (op.compare(0, p.size(), p) == 0) return true;
    return false;
}

MpsPrediction predict(const MpsTable& table, const std::string& op, const std::vector<std::string>& dtypes) {
    for (const auto& d : dtypes)
        for (const auto& bad : table.unsupported_dtypes)
            if (d == bad)
                return {"unsupported-dtype", "MPS has no " + d + ": allocating it raises TypeError ('Cannot convert a MPS Tensor to " +
                                                 (d == "float64" ? std::string("float64") : d) + " dtype ...')"};
    if (backend_specific(op))
        return {"native", "a CUDA/CPU library kernel chosen by the backend this step ran on; on MPS the same call dispatches to MPS"};
    switch (table.lookup(op)) {
        case MpsSupport::native: return {"native", "MPS kernel in PyTorch " + table.torch_version};
        case MpsSupport::composite:
            return {"native", "composite in PyTorch " + table.torch_version + ": decomposes into other ops"};
        case MpsSupport::fallback:
            return {"fallback", "no MPS kernel in PyTorch " + table.torch_version +
                                    ": NotImplementedError, or CPU fallback with PYTORCH_ENABLE_MPS_FALLBACK=1"};
        case MpsSupport::unknown: break;
    }
    return {"unknown", "not an aten op of PyTorch " + table.torch_version};
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
        }
        if (const YAML::Node s = item["structured_delegate"]) e.delegate = "aten::" + s.as<std::string>();
        if (const YAML::Node a = item["autogen"]) e.autogen = split_commas(a.as<std::string>());
        entries[key] = std::move(e);
    }
    for (const auto& [key, e] : entries) {
        const MpsSupport s = support_of(key, entries);
        table.ops[key] = s;
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

std::string mps_table_to_json(const MpsTable& t) {
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.ops) ops[k] = to_string(v);
    nlohmann::ordered_json xfail = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.unimplemented_xfail) xfail[k] = v;
    nlohmann::ordered_json j;
    j["schema"] = "mpsport.mps-ops/1";
    j["torch"] = t.torch_version;
    j["generated_by"] = "mpsport tables (from native_functions.yaml and common_mps.py; see ../shared/data/pytorch/SOURCES.md)";
    j["unsupported_dtypes"] = t.unsupported_dtypes;
    j["forced_fallback_known"] = t.forced_fallback_known;
    j["forced_fallback"] = std::vector<std::string>(t.forced_fallback.begin(), t.forced_fallback.end());
    j["unimplemented_xfail"] = xfail;
    j["complex_ops"] = std::vector<std::string>(t.complex_ops.begin(), t.complex_ops.end());
    j["ops"] = ops;
    return j.dump(1) + "\n";
}

MpsTable mps_table_from_json(const std::string& text, const std::string& origin) {
    MpsTable t;
    try {
        const auto j = nlohmann::json::parse(text);
        if (j.at("schema") != "mpsport.mps-ops/1") throw std::runtime_error("unknown schema");
        t.torch_version = j.at("torch").get<std::string>();
        t.unsupported_dtypes = j.at("unsupported_dtypes").get<std::vector<std::string>>();
        t.forced_fallback_known = j.at("forced_fallback_known").get<bool>();
        for (const auto& op : j.at("forced_fallback")) t.forced_fallback.insert(op.get<std::string>());
        for (const auto& [k, v] : j.at("unimplemented_xfail").items()) t.unimplemented_xfail[k] = v.get<std::vector<std::string>>();
        for (const auto& op : j.at("complex_ops")) t.complex_ops.insert(op.get<std::string>());
        for (const auto& [k, v] : j.at("ops").items()) t.ops[k] = parse_support(v.get<std::string>());
    } catch (const std::exception& e) {
        throw std::runtime_error(origin + ": not an MPS op table (" + e.what() + "); regenerate it with `mpsport tables`");
    }
    return t;
}

std::vector<fs::path> generate_bundled_tables(const fs::path& data_dir, const fs::path& rules_dir) {
    std::vector<fs::path> written;
    TableSources v26;
    v26.native_functions = data_dir / "native_functions-2.6.0.yaml";
    v26.torch_version = "2.6.0";
    v26.forced_fallback = forced_fallback_2_6_0();
    v26.forced_fallback_known = true;
    TableSources v214;
    v214.native_functions = data_dir / "native_functions-2.14.1.yaml";
    v214.common_mps = data_dir / "common_mps-2.14.1.py.txt";
    v214.torch_version = "2.14.1";
    for (const TableSources& src : {v26, v214}) {
        const fs::path out = mps_table_path(rules_dir, src.torch_version);
        write_file_atomically(out, mps_table_to_json(generate_mps_table(src)));
        written.push_back(out);
    }
    return written;
}

fs::path mps_table_path(const fs::path& rules_dir, const std::string& version) {
    return rules_dir / "mps" / ("mps-ops-" + version + ".json");
}

MpsTable load_mps_table(const fs::path& rules_dir, const std::string& version) {
    const fs::path p = mps_table_path(rules_dir, version);
    std::error_code ec;
    if (!fs::exists(p, ec))
        throw std::runtime_error(p.generic_string() + ": no MPS op table for PyTorch " + version + " (bundled: 2.6.0, 2.14.1)");
    return mps_table_from_json(read_file(p), p.generic_string());
}

}  // namespace mpsport
