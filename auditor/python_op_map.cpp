// The Python-name side of `mpsport tables`: which aten ops a call of a Python name reaches, from
// native_functions.yaml (python_module, variants) and the hand-kept rules/mps/python-names.yaml.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "auditor/mps_tables.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

struct BaseOp {
    std::string python_module;
    bool function = false;
    bool method = false;
    // The entry of exactly this name (else any overload) has a dense CPU/CUDA/MPS kernel;
    // `.out` overloads do not count: `adaptive_avg_pool3d.out` has a CPU kernel, `adaptive_avg_pool3d` none.
    bool own_kernel = false;
    bool exact_seen = false;
};

struct HandNames {
    std::map<std::string, std::vector<std::string>> modules, functions, kernels, backward;
    std::vector<std::string> common_method_names;
    std::map<std::string, PythonOpMap::Selector> selectors;
    std::map<std::string, std::map<std::string, std::vector<std::string>>> selected;  // name -> value -> ops
};

// by_argument: name -> {argument: {name, position, default}, ops: {value: [op, ...]}}
void read_selectors(const YAML::Node& doc, const fs::path& path, HandNames& h) {
    const YAML::Node n = doc["by_argument"];
    if (!n) return;
    if (!n.IsMap()) throw std::runtime_error(path.generic_string() + ": `by_argument` must map names to {argument, ops}");
    for (const auto& kv : n) {
        const std::string name = kv.first.as<std::string>();
        const YAML::Node arg = kv.second["argument"];
        if (!arg || !kv.second["ops"] || !kv.second["ops"].IsMap())
            throw std::runtime_error(path.generic_string() + ": by_argument." + name + " needs `argument` and an `ops` map");
        h.selectors[name] = {arg["name"].as<std::string>(), arg["position"].as<int>(), arg["default"].as<std::string>()};
        for (const auto& v : kv.second["ops"]) h.selected[name][v.first.as<std::string>()] = v.second.as<std::vector<std::string>>();
    }
}

YAML::Node load_yaml(const fs::path& path) {
    try {
        return YAML::LoadFile(path.string());
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(path.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
}

std::map<std::string, std::vector<std::string>> name_lists(const YAML::Node& doc, const char* key, const fs::path& path) {
    std::map<std::string, std::vector<std::string>> out;
    const YAML::Node n = doc[key];
    if (!n) return out;
    if (!n.IsMap()) throw std::runtime_error(path.generic_string() + ": `" + key + "` must map names to lists of aten op names");
    for (const auto& kv : n) out[kv.first.as<std::string>()] = kv.second.as<std::vector<std::string>>();
    return out;
}

HandNames read_hand_names(const fs::path& path) {
    const YAML::Node doc = load_yaml(path);
    HandNames h;
    try {
        h.modules = name_lists(doc, "modules", path);
        h.functions = name_lists(doc, "functions", path);
        h.kernels = name_lists(doc, "kernels", path);
        h.backward = name_lists(doc, "backward", path);
        if (doc["common_method_names"]) h.common_method_names = doc["common_method_names"].as<std::vector<std::string>>();
        read_selectors(doc, path, h);
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(path.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    return h;
}

// A dense backend kernel (not a composite, nested, sparse or quantized one).
bool dense_kernel_key(const std::string& keys) {
    for (std::size_t pos = 0; pos < keys.size();) {
        std::size_t comma = keys.find(',', pos);
        if (comma == std::string::npos) comma = keys.size();
        std::string k = keys.substr(pos, comma - pos);
        k.erase(0, k.find_first_not_of(' '));
        k.erase(k.find_last_not_of(' ') + 1);
        if (k == "CPU" || k == "CUDA" || k == "MPS") return true;
        pos = comma + 1;
    }
    return false;
}

std::map<std::string, BaseOp> read_base_ops(const fs::path& native_functions) {
    const YAML::Node doc = load_yaml(native_functions);
    if (!doc.IsSequence()) throw std::runtime_error(native_functions.generic_string() + ": expected a list of op entries");
    std::map<std::string, BaseOp> bases;
    for (const auto& item : doc) {
        if (!item["func"]) continue;
        const std::string func = item["func"].as<std::string>();
        const std::string name = func.substr(0, func.find('('));
        const bool exact = name.find('.') == std::string::npos;
        BaseOp& b = bases[name.substr(0, name.find('.'))];
        if (const YAML::Node pm = item["python_module"]) b.python_module = pm.as<std::string>();
        const std::string variants = item["variants"] ? item["variants"].as<std::string>() : "function";
        b.function = b.function || variants.find("function") != std::string::npos;
        b.method = b.method || variants.find("method") != std::string::npos;
        if (b.exact_seen && !exact) continue;
        bool kernel = item["structured_delegate"].IsDefined();
        if (const YAML::Node d = item["dispatch"]; d && d.IsMap())
            for (const auto& kv : d)
                if (dense_kernel_key(kv.first.as<std::string>())) kernel = true;
        if (exact) {
            b.own_kernel = kernel;
            b.exact_seen = true;
        } else {
            b.own_kernel = b.own_kernel || kernel;
        }
    }
    return bases;
}

// The Python names of one base op: torch.<op>, torch.linalg.<op minus linalg_>, ... ("" for none).
std::vector<std::string> python_names(const std::string& op, const BaseOp& b) {
    if (op.empty() || op[0] == '_' || !b.function) return {};
    auto strip = [&](const std::string& prefix) { return op.rfind(prefix, 0) == 0 ? op.substr(prefix.size()) : op; };
    const std::string& pm = b.python_module;
    if (pm.empty()) return {"torch." + op, "torch.nn.functional." + op};
    if (pm == "nn") return {"torch._C._nn." + op, "torch.nn.functional." + op};
    if (pm == "linalg") return {"torch.linalg." + strip("linalg_")};
    if (pm == "fft") return {"torch.fft." + strip("fft_")};
    if (pm == "special") return {"torch.special." + strip("special_")};
    if (pm == "sparse") return {"torch.sparse." + strip("sparse_")};
    return {};  // nested and future modules: not mapped
}

class OpReach {
public:
    OpReach(const std::map<std::string, BaseOp>& bases, const HandNames& hand) : m_bases(bases), m_kernels(hand.kernels), m_backward(hand.backward) {}

    // "aten::" names of `op`, the kernels it decomposes into, and their backward ops.
    std::vector<std::string> of(const std::string& op) const {
        std::vector<std::string> chain = {op};
        if (auto k = m_kernels.find(op); k != m_kernels.end()) {
            chain.insert(chain.end(), k->second.begin(), k->second.end());
        } else if (auto b = m_bases.find(op); b != m_bases.end() && !b->second.own_kernel && m_bases.count("_" + op)) {
            chain.push_back("_" + op);  // softmax -> _softmax, ctc_loss -> _ctc_loss, linalg_eigh -> _linalg_eigh
        }
        std::vector<std::string> out;
        for (const auto& o : chain) {
            add(out, o);
            // Autograd of a composite runs through its decomposition; `matmul_backward` is a nested-tensor op.
            if (auto hb = m_backward.find(o); hb != m_backward.end())
                for (const auto& backward : hb->second) add(out, backward);
            auto b = m_bases.find(o);
            if (b == m_bases.end() || !b->second.own_kernel) continue;
            for (const char* suffix : {"_backward", "_backward_data"})
                if (m_bases.count(o + suffix)) add(out, o + suffix);
        }
        return out;
    }

private:
    static void add(std::vector<std::string>& out, const std::string& op) {
        const std::string key = "aten::" + op;
        if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
    }
    const std::map<std::string, BaseOp>& m_bases;
    const std::map<std::string, std::vector<std::string>>& m_kernels;
    const std::map<std::string, std::vector<std::string>>& m_backward;
};

void merge(std::vector<std::string>& into, const std::vector<std::string>& ops) {
    for (const auto& o : ops)
        if (std::find(into.begin(), into.end(), o) == into.end()) into.push_back(o);
}

}  // namespace

PythonOpMap generate_python_op_map(const fs::path& native_functions, const fs::path& hand_names, const std::string& torch_version) {
    const HandNames hand = read_hand_names(hand_names);
    const std::map<std::string, BaseOp> bases = read_base_ops(native_functions);
    const OpReach reach(bases, hand);
    PythonOpMap map;
    map.torch_version = torch_version;
    map.common_method_names = hand.common_method_names;
    std::sort(map.common_method_names.begin(), map.common_method_names.end());
    const std::set<std::string> common(map.common_method_names.begin(), map.common_method_names.end());
    for (const auto& [op, b] : bases) {
        const std::vector<std::string> ops = reach.of(op);
        for (const auto& name : python_names(op, b)) merge(map.functions[name], ops);
        if (!b.method || op[0] == '_') continue;
        merge(map.functions["torch.Tensor." + op], ops);
        if (!common.count(op)) merge(map.methods[op], ops);
    }
    // Hand-kept names name ops of the newest yaml; an op an older yaml lacks is left out of its map.
    auto hand_kept = [&](const std::string& name, const std::vector<std::string>& ops) {
        std::vector<std::string> reached;
        for (const auto& op : ops)
            if (bases.count(op)) merge(reached, reach.of(op));
        if (!reached.empty()) map.functions[name] = reached;
    };
    for (const auto* table : {&hand.modules, &hand.functions})
        for (const auto& [name, ops] : *table) hand_kept(name, ops);
    for (const auto& [name, selector] : hand.selectors) {
        map.selectors[name] = selector;
        map.functions.erase(name);  // only its selected variants name ops
        for (const auto& [value, ops] : hand.selected.at(name)) hand_kept(PythonOpMap::selected_name(name, selector, value), ops);
    }
    return map;
}

}  // namespace mpsport
