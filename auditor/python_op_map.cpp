// The Python-name side of `mpsport tables`: which aten ops a call of a Python name reaches, from
// native_functions.yaml (python_module, variants) and the hand-kept rules/mps/python-names.yaml.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "auditor/mps_tables.hpp"
#include "core/rule_schema.hpp"

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
    // name -> the variant's key in the op map ("<name>(mode=nearest, rank=3)") -> ops
    std::map<std::string, std::map<std::string, std::vector<std::string>>> selected;
    std::map<std::string, int> rank_suffixes;
};

// One argument of a call: {name, position}.
PythonOpMap::Selector::Argument read_argument(const YAML::Node& n) { return {n["name"].as<std::string>(), n["position"].as<int>()}; }

// by_argument: name -> {argument, rank, flag, ops: {value: [op, ...] | {rank: [op, ...]}}, flagged_ops}
// (rules/mps/python-names.schema.json has the shape; the schema check runs before this).
void read_selectors(const YAML::Node& doc, HandNames& h) {
    const YAML::Node n = doc["by_argument"];
    if (!n) return;
    for (const auto& kv : n) {
        const std::string name = kv.first.as<std::string>();
        const YAML::Node arg = kv.second["argument"];
        PythonOpMap::Selector sel;
        sel.argument = arg["name"].as<std::string>();
        sel.position = arg["position"].as<int>();
        sel.fallback = arg["default"].as<std::string>();
        if (const YAML::Node rank = kv.second["rank"]) {
            for (const auto& a : rank["arguments"]) sel.rank_arguments.push_back(read_argument(a));
            if (rank["input"]) sel.input = rank["input"].as<int>();
            sel.assumed_rank = rank["assumed"].as<int>();
        }
        if (const YAML::Node flag = kv.second["flag"]) sel.flag = read_argument(flag);
        for (const auto& v : kv.second["ops"]) {
            const std::string value = v.first.as<std::string>();
            if (v.second.IsSequence()) {
                h.selected[name][PythonOpMap::selected_name(name, sel, value)] = v.second.as<std::vector<std::string>>();
                continue;
            }
            for (const auto& by_rank : v.second)
                h.selected[name][PythonOpMap::selected_name(name, sel, value, by_rank.first.as<int>())] = by_rank.second.as<std::vector<std::string>>();
        }
        if (const YAML::Node flagged = kv.second["flagged_ops"])
            for (const auto& v : flagged)
                h.selected[name][PythonOpMap::selected_name(name, sel, v.first.as<std::string>(), 0, true)] = v.second.as<std::vector<std::string>>();
        h.selectors[name] = std::move(sel);
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
    validate_with_schema(doc, path.parent_path() / "python-names.schema.json", path);
    HandNames h;
    try {
        h.modules = name_lists(doc, "modules", path);
        h.functions = name_lists(doc, "functions", path);
        h.kernels = name_lists(doc, "kernels", path);
        h.backward = name_lists(doc, "backward", path);
        if (doc["common_method_names"]) h.common_method_names = doc["common_method_names"].as<std::vector<std::string>>();
        read_selectors(doc, h);
        if (doc["rank_suffixes"]) h.rank_suffixes = doc["rank_suffixes"].as<std::map<std::string, int>>();
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

// The ops a Python name reaches: those its call runs (the op, the kernels a composite decomposes
// into) and those only autograd runs for it (their backward ops), "aten::" names.
struct Reached {
    std::vector<std::string> forward, autograd;
};

void merge(std::vector<std::string>& into, const std::vector<std::string>& ops) {
    for (const auto& o : ops)
        if (std::find(into.begin(), into.end(), o) == into.end()) into.push_back(o);
}

void merge(Reached& into, const Reached& r) {
    merge(into.forward, r.forward);
    merge(into.autograd, r.autograd);
}

class OpReach {
public:
    OpReach(const std::map<std::string, BaseOp>& bases, const HandNames& hand) : m_bases(bases), m_kernels(hand.kernels), m_backward(hand.backward) {}

    Reached of(const std::string& op) const {
        std::vector<std::string> chain = {op};
        if (auto k = m_kernels.find(op); k != m_kernels.end()) {
            chain.insert(chain.end(), k->second.begin(), k->second.end());
        } else if (auto b = m_bases.find(op); b != m_bases.end() && !b->second.own_kernel && m_bases.count("_" + op)) {
            chain.push_back("_" + op);  // softmax -> _softmax, ctc_loss -> _ctc_loss, linalg_eigh -> _linalg_eigh
        }
        Reached out;
        for (const auto& o : chain) {
            add(out.forward, o);
            // Autograd of a composite runs through its decomposition; `matmul_backward` is a nested-tensor op.
            if (auto hb = m_backward.find(o); hb != m_backward.end())
                for (const auto& backward : hb->second) add(out.autograd, backward);
            auto b = m_bases.find(o);
            if (b == m_bases.end() || !b->second.own_kernel) continue;
            for (const char* suffix : {"_backward", "_backward_data"})
                if (m_bases.count(o + suffix)) add(out.autograd, o + suffix);
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

// Writes what one Python name reaches into the map: every op (forward ones first) under `functions`,
// and, under `autograd`, those only the backward pass runs (an op the call itself runs never is).
void put(PythonOpMap& map, const std::string& name, const Reached& r) {
    std::vector<std::string>& all = map.functions[name];
    all = r.forward;
    std::vector<std::string> autograd;
    for (const auto& op : r.autograd)
        if (std::find(r.forward.begin(), r.forward.end(), op) == r.forward.end()) autograd.push_back(op);
    merge(all, autograd);
    if (autograd.empty()) map.autograd.erase(name);
    else map.autograd[name] = std::move(autograd);
}

}  // namespace

PythonOpMap generate_python_op_map(const fs::path& native_functions, const fs::path& hand_names, const std::string& torch_version) {
    const HandNames hand = read_hand_names(hand_names);
    const std::map<std::string, BaseOp> bases = read_base_ops(native_functions);
    const OpReach reach(bases, hand);
    PythonOpMap map;
    map.torch_version = torch_version;
    map.common_method_names = hand.common_method_names;
    map.rank_suffixes = hand.rank_suffixes;
    std::sort(map.common_method_names.begin(), map.common_method_names.end());
    const std::set<std::string> common(map.common_method_names.begin(), map.common_method_names.end());
    std::map<std::string, Reached> names;
    std::set<std::string> methods;
    for (const auto& [op, b] : bases) {
        const Reached r = reach.of(op);
        for (const auto& name : python_names(op, b)) merge(names[name], r);
        if (!b.method || op[0] == '_') continue;
        merge(names["torch.Tensor." + op], r);
        if (!common.count(op)) methods.insert(op);
    }
    // Hand-kept names name ops of the newest yaml; an op an older yaml lacks is left out of its map.
    auto hand_kept = [&](const std::string& name, const std::vector<std::string>& ops) {
        Reached reached;
        for (const auto& op : ops)
            if (bases.count(op)) merge(reached, reach.of(op));
        if (!reached.forward.empty()) names[name] = reached;
    };
    for (const auto* table : {&hand.modules, &hand.functions})
        for (const auto& [name, ops] : *table) hand_kept(name, ops);
    for (const auto& [name, selector] : hand.selectors) {
        map.selectors[name] = selector;
        names.erase(name);  // only its selected variants name ops
        for (const auto& [key, ops] : hand.selected.at(name)) hand_kept(key, ops);
    }
    for (const auto& [name, r] : names) put(map, name, r);
    for (const auto& op : methods) map.methods[op] = map.functions.at("torch.Tensor." + op);
    return map;
}

}  // namespace mpsport
