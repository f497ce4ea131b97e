#include "core/mps_tables.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/rule_schema.hpp"

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

MpsSupport parse_mps_support(std::string_view s) {
    if (s == "native") return MpsSupport::native;
    if (s == "composite") return MpsSupport::composite;
    if (s == "fallback") return MpsSupport::fallback;
    return MpsSupport::unknown;
}

const std::vector<std::string>& bundled_torch_versions() {
    static const std::vector<std::string> versions = {"2.6.0", kDefaultTargetTorch};
    return versions;
}

void require_bundled_torch_version(const std::string& version) {
    const auto& v = bundled_torch_versions();
    if (std::find(v.begin(), v.end(), version) != v.end()) return;
    std::string list;
    for (const auto& s : v) list += (list.empty() ? "" : ", ") + s;
    throw std::runtime_error("--target-torch " + version + ": no MPS op table for this PyTorch version (bundled: " + list + ")");
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

std::string MpsMessage::for_op(const std::string& op) const {
    std::string out = text;
    for (std::size_t at = out.find("{op}"); at != std::string::npos; at = out.find("{op}", at + op.size())) out.replace(at, 4, op);
    return out;
}

std::string MpsMessages::matches_json() const {
    return nlohmann::json{{"fallback_warning", fallback_warning.match}, {"not_implemented", not_implemented.match}, {"float64", float64.match}}.dump();
}

MpsMessages load_mps_messages(const fs::path& rules_dir) {
    const fs::path path = rules_dir / "mps" / "runtime-messages.yaml";
    YAML::Node doc;
    try {
        doc = YAML::LoadFile(path.string());
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(path.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    validate_with_schema(doc, rules_dir / "mps" / "runtime-messages.schema.json", path);
    auto message = [&](const char* key) { return MpsMessage{doc[key]["text"].as<std::string>(), doc[key]["match"].as<std::string>()}; };
    return {message("fallback_warning"), message("not_implemented"), message("float64")};
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

std::string mps_table_to_json(const MpsTable& t) {
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.ops) ops[k] = to_string(v);
    nlohmann::ordered_json xfail = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.unimplemented_xfail) xfail[k] = v;
    nlohmann::ordered_json j;
    j["schema"] = "mpsport.mps-ops/2";
    j["torch"] = t.torch_version;
    j["generated_by"] = "mpsport tables (from native_functions.yaml and common_mps.py; see ../shared/data/pytorch/SOURCES.md)";
    j["unsupported_dtypes"] = t.unsupported_dtypes;
    j["forced_fallback_known"] = t.forced_fallback_known;
    j["forced_fallback"] = std::vector<std::string>(t.forced_fallback.begin(), t.forced_fallback.end());
    j["unimplemented_xfail"] = xfail;
    j["complex_ops"] = std::vector<std::string>(t.complex_ops.begin(), t.complex_ops.end());
    j["sparse_ops"] = std::vector<std::string>(t.sparse_ops.begin(), t.sparse_ops.end());
    j["ops"] = ops;
    return j.dump(1) + "\n";
}

MpsTable mps_table_from_json(const std::string& text, const std::string& origin) {
    MpsTable t;
    try {
        const auto j = nlohmann::json::parse(text);
        if (j.at("schema") != "mpsport.mps-ops/2") throw std::runtime_error("unknown schema");
        t.torch_version = j.at("torch").get<std::string>();
        t.unsupported_dtypes = j.at("unsupported_dtypes").get<std::vector<std::string>>();
        t.forced_fallback_known = j.at("forced_fallback_known").get<bool>();
        for (const auto& op : j.at("forced_fallback")) t.forced_fallback.insert(op.get<std::string>());
        for (const auto& [k, v] : j.at("unimplemented_xfail").items()) t.unimplemented_xfail[k] = v.get<std::vector<std::string>>();
        for (const auto& op : j.at("complex_ops")) t.complex_ops.insert(op.get<std::string>());
        for (const auto& op : j.at("sparse_ops")) t.sparse_ops.insert(op.get<std::string>());
        for (const auto& [k, v] : j.at("ops").items()) t.ops[k] = parse_mps_support(v.get<std::string>());
    } catch (const std::exception& e) {
        throw std::runtime_error(origin + ": not an MPS op table (" + e.what() + "); regenerate it with `mpsport tables`");
    }
    return t;
}

fs::path mps_table_path(const fs::path& rules_dir, const std::string& version) {
    return rules_dir / "mps" / ("mps-ops-" + version + ".json");
}

static std::string read_bundled(const fs::path& p, const std::string& version) {
    require_bundled_torch_version(version);
    std::error_code ec;
    if (!fs::exists(p, ec)) throw std::runtime_error(p.generic_string() + ": missing; regenerate the tables with `mpsport tables`");
    return read_file(p);
}

MpsTable load_mps_table(const fs::path& rules_dir, const std::string& version) {
    const fs::path p = mps_table_path(rules_dir, version);
    return mps_table_from_json(read_bundled(p, version), p.generic_string());
}

const std::vector<std::string>* PythonOpMap::function(std::string_view qualname) const {
    auto it = functions.find(qualname);
    return it == functions.end() ? nullptr : &it->second;
}

const std::vector<std::string>* PythonOpMap::method(std::string_view name) const {
    auto it = methods.find(name);
    return it == methods.end() ? nullptr : &it->second;
}

const std::vector<std::string>& PythonOpMap::autograd_ops(std::string_view name) const {
    static const std::vector<std::string> none;
    auto it = autograd.find(name);
    return it == autograd.end() ? none : it->second;
}

std::string PythonOpMap::selected_name(std::string_view name, const Selector& s, std::string_view value, int rank, bool flagged) {
    return std::string(name) + "(" + s.argument + "=" + std::string(value) + (rank ? ", rank=" + std::to_string(rank) : std::string()) +
           (flagged ? ", " + s.flag.name + "=True" : std::string()) + ")";
}

namespace {

nlohmann::ordered_json selector_to_json(const PythonOpMap::Selector& v) {
    nlohmann::ordered_json j = {{"argument", v.argument}, {"position", v.position}, {"default", v.fallback}};
    if (v.assumed_rank) {
        nlohmann::ordered_json args = nlohmann::ordered_json::array();
        for (const auto& a : v.rank_arguments) args.push_back({{"name", a.name}, {"position", a.position}});
        j["rank"] = {{"arguments", args}, {"input", v.input}, {"assumed", v.assumed_rank}};
    }
    if (!v.flag.name.empty()) j["flag"] = {{"name", v.flag.name}, {"position", v.flag.position}};
    return j;
}

PythonOpMap::Selector selector_from_json(const nlohmann::json& v) {
    PythonOpMap::Selector s{};
    s.argument = v.at("argument").get<std::string>();
    s.position = v.at("position").get<int>();
    s.fallback = v.at("default").get<std::string>();
    if (v.contains("rank")) {
        for (const auto& a : v["rank"].at("arguments")) s.rank_arguments.push_back({a.at("name").get<std::string>(), a.at("position").get<int>()});
        s.input = v["rank"].at("input").get<int>();
        s.assumed_rank = v["rank"].at("assumed").get<int>();
    }
    if (v.contains("flag")) s.flag = {v["flag"].at("name").get<std::string>(), v["flag"].at("position").get<int>()};
    return s;
}

}  // namespace

std::string python_op_map_to_json(const PythonOpMap& m) {
    nlohmann::ordered_json functions = nlohmann::ordered_json::object();
    for (const auto& [k, v] : m.functions) functions[k] = v;
    nlohmann::ordered_json methods = nlohmann::ordered_json::object();
    for (const auto& [k, v] : m.methods) methods[k] = v;
    nlohmann::ordered_json autograd = nlohmann::ordered_json::object();
    for (const auto& [k, v] : m.autograd) autograd[k] = v;
    nlohmann::ordered_json j;
    j["schema"] = "mpsport.python-ops/2";
    j["torch"] = m.torch_version;
    j["generated_by"] = "mpsport tables (from native_functions.yaml and rules/mps/python-names.yaml)";
    j["common_method_names"] = m.common_method_names;
    nlohmann::ordered_json selectors = nlohmann::ordered_json::object();
    for (const auto& [k, v] : m.selectors) selectors[k] = selector_to_json(v);
    j["selectors"] = selectors;
    j["rank_suffixes"] = m.rank_suffixes;
    j["functions"] = functions;
    j["methods"] = methods;
    j["autograd"] = autograd;
    return j.dump(1) + "\n";
}

PythonOpMap python_op_map_from_json(const std::string& text, const std::string& origin) {
    PythonOpMap m;
    try {
        const auto j = nlohmann::json::parse(text);
        if (j.at("schema") != "mpsport.python-ops/2") throw std::runtime_error("unknown schema");
        m.torch_version = j.at("torch").get<std::string>();
        m.common_method_names = j.at("common_method_names").get<std::vector<std::string>>();
        for (const auto& [k, v] : j.at("selectors").items()) m.selectors[k] = selector_from_json(v);
        m.rank_suffixes = j.at("rank_suffixes").get<std::map<std::string, int>>();
        for (const auto& [k, v] : j.at("functions").items()) m.functions[k] = v.get<std::vector<std::string>>();
        for (const auto& [k, v] : j.at("methods").items()) m.methods[k] = v.get<std::vector<std::string>>();
        for (const auto& [k, v] : j.at("autograd").items()) m.autograd[k] = v.get<std::vector<std::string>>();
    } catch (const std::exception& e) {
        throw std::runtime_error(origin + ": not a Python-to-aten op map (" + e.what() + "); regenerate it with `mpsport tables`");
    }
    return m;
}

fs::path python_op_map_path(const fs::path& rules_dir, const std::string& version) {
    return rules_dir / "mps" / ("python-ops-" + version + ".json");
}

std::uint64_t op_tables_digest(const fs::path& rules_dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(rules_dir / "mps", ec), end; !ec && it != end; it.increment(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    std::string input;
    for (const auto& f : files) input += f.filename().string() + "\n" + read_file(f);
    return content_hash(input);
}

PythonOpMap load_python_op_map(const fs::path& rules_dir, const std::string& version) {
    const fs::path p = python_op_map_path(rules_dir, version);
    return python_op_map_from_json(read_bundled(p, version), p.generic_string());
}

}  // namespace mpsport
