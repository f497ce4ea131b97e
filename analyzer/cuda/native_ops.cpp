// Joins the registrations of every file: an op's CUDA kernel and its CPU twin usually live in two
// files (op_cuda.cu with TORCH_LIBRARY_IMPL(ns, CUDA, m), op_cpu.cpp with ... CPU ...), and a pybind
// binding in one .cpp calls a launcher defined in a .cu. No Clang here: it reads TuFacts only.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

#include "analyzer/cuda/clang_engine.hpp"

namespace mpsport::cuda {
namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string short_name(const std::string& qualified) {
    const auto colons = qualified.rfind("::");
    return colons == std::string::npos ? qualified : qualified.substr(colons + 2);
}

// Whether a function runs CUDA (true) or not (false), from the files that define it; by its name
// when no scanned file does (foo_cuda, launch_gpu vs foo_cpu).
class FunctionIndex {
public:
    explicit FunctionIndex(const std::map<std::string, TuFacts>& facts) {
        for (const auto& [path, f] : facts)
            for (const auto& fn : f.functions) {
                add(m_full[fn.name], fn);
                add(m_short[short_name(fn.name)], fn);
            }
    }
    bool defines(const std::string& name) const { return m_full.count(name) || m_short.count(short_name(name)); }
    std::optional<bool> cuda(const std::string& name) const {
        if (name.empty()) return std::nullopt;  // a call through a pointer or registry
        if (auto it = m_full.find(name); it != m_full.end()) return it->second.value();
        if (auto it = m_short.find(short_name(name)); it != m_short.end()) return it->second.value();
        const std::string n = lower(short_name(name));
        if (n.find("cuda") != std::string::npos || n.find("gpu") != std::string::npos) return true;
        if (n.find("cpu") != std::string::npos) return false;
        return std::nullopt;
    }

    // Whether the function also has a CPU side, besides its CUDA one.
    bool cpu_too(const std::string& name) const {
        if (auto it = m_full.find(name); it != m_full.end()) return it->second.cpu;
        if (auto it = m_short.find(short_name(name)); it != m_short.end()) return it->second.cpu;
        return false;
    }

private:
    struct Known {
        bool cuda = false, indirect = false, cpu = false;
        std::optional<bool> value() const { return cuda ? std::optional<bool>(true) : indirect ? std::nullopt : std::optional<bool>(false); }
    };
    static void add(Known& k, const DefinedFunction& fn) {
        k.cuda = k.cuda || fn.cuda;
        k.indirect = k.indirect || fn.indirect;
        k.cpu = k.cpu || fn.cpu;
    }
    std::map<std::string, Known> m_full, m_short;
};

std::set<NativeDevice> binding_devices(const Registration& r, const FunctionIndex& index) {
    std::set<NativeDevice> devices(r.devices.begin(), r.devices.end());
    bool unknown = false;
    for (const auto& c : r.callees) {
        const std::optional<bool> cuda = index.cuda(c.name);
        unknown = unknown || !cuda;
        switch (c.branch) {
            case Branch::cuda: devices.insert(NativeDevice::CUDA); break;
            case Branch::cpu: devices.insert(cuda.value_or(false) ? NativeDevice::CUDA : NativeDevice::CPU); break;
            case Branch::any:
                if (cuda) devices.insert(*cuda ? NativeDevice::CUDA : NativeDevice::CPU);
                break;
        }
        if (c.branch != Branch::cuda && index.cpu_too(c.name)) devices.insert(NativeDevice::CPU);
    }
    // Plain C++ on host data, unless it calls what no scanned file explains (then: unknown, empty).
    if (devices.empty() && !unknown) devices.insert(NativeDevice::CPU);
    return devices;
}

// The device path a TORCH_LIBRARY(_IMPL) registration adds; nullopt for keys that add none (Autograd, Meta, ...).
std::optional<NativeDevice> key_device(const Registration& r) {
    const std::string& k = r.dispatch_key;
    if (k.empty()) {
        if (r.kind == Registration::Kind::library_def && !r.has_function) return std::nullopt;  // schema only
        return NativeDevice::Composite;  // catch-all kernel
    }
    if (k == "CUDA" || k == "SparseCUDA" || k == "QuantizedCUDA") return NativeDevice::CUDA;
    if (k == "CPU" || k == "SparseCPU" || k == "QuantizedCPU") return NativeDevice::CPU;
    if (k == "MPS") return NativeDevice::MPS;
    if (k.rfind("Composite", 0) == 0 || k == "Math" || k == "DefaultBackend" || k == "CatchAll") return NativeDevice::Composite;
    return std::nullopt;
}

struct PendingOp {
    std::set<NativeDevice> devices;
    Location location;
    std::string snippet;
    bool from_def = false;
};

Location location_of(const std::string& path, const Registration& r) {
    Location l;
    l.path = path;
    l.line = l.end_line = r.line;
    l.col = r.col;
    l.end_col = r.col + static_cast<int>(r.snippet.size());
    return l;
}

std::string join(const std::vector<NativeDevice>& devices) {
    std::string out;
    for (NativeDevice d : devices) out += (out.empty() ? "" : ", ") + std::string(to_string(d));
    return out;
}

void add_findings(const NativeModule& module, const std::map<std::string, std::string>& snippets, const RuleCatalogue& catalogue,
                  std::vector<Finding>& out) {
    for (const auto& op : module.ops) {
        const bool cuda = std::count(op.devices.begin(), op.devices.end(), NativeDevice::CUDA) > 0;
        if (!cuda) continue;
        // an MPS kernel beside the CUDA one (an Objective-C++ file's TORCH_LIBRARY_IMPL(ns, MPS, m)):
        // the op runs natively on a Mac
        const bool mps = std::count(op.devices.begin(), op.devices.end(), NativeDevice::MPS) > 0;
        const std::string when = op.devices.size() == 1 ? "cuda-only" : mps ? "cuda-and-mps" : "cuda-and-other";
        for (const auto& rule : catalogue.rules()) {
            if (rule.engine != "clang" || rule.check != "native-op-devices") continue;
            const auto it = rule.params.find("when");
            if (it == rule.params.end() || std::find(it->second.begin(), it->second.end(), when) == it->second.end()) continue;
            std::vector<NativeDevice> others;
            std::copy_if(op.devices.begin(), op.devices.end(), std::back_inserter(others), [](NativeDevice d) { return d != NativeDevice::CUDA; });
            const std::map<std::string, std::string> captures = {{"op", op.name},
                                                                 {"devices", join(op.devices)},
                                                                 {"other_devices", join(others)},
                                                                 {"module", module.module_name},
                                                                 {"finding", op.name}};
            Finding f;
            f.rule_id = rule.id;
            f.severity = f.rule_severity = rule.severity;
            f.category = rule.category;
            f.impact = f.rule_impact = rule.impact;
            f.subject = module.module_name;
            f.native_op = op.name;
            f.location = op.location;
            f.snippet = snippets.count(op.name) ? snippets.at(op.name) : op.name;
            f.matched = module.module_name + "." + op.name;
            f.message = expand_message(rule.message, captures);
            f.fix = expand_message(rule.fix, captures);
            out.push_back(std::move(f));
        }
    }
}

}  // namespace

LinkedOps link_native_ops(const std::map<std::string, TuFacts>& facts_by_path, const RuleCatalogue& catalogue) {
    const FunctionIndex index(facts_by_path);
    std::map<std::pair<std::string, std::string>, NativeModule> bindings;        // (path, module) -> module
    std::map<std::pair<std::string, std::string>, std::string> binding_snippets; // (path, op) -> line
    std::map<std::string, std::map<std::string, PendingOp>> library;             // ns -> op -> devices
    std::map<std::string, std::string> library_path;                             // ns -> the file that defines it
    for (const auto& [path, facts] : facts_by_path) {
        for (const auto& r : facts.registrations) {
            if (r.kind == Registration::Kind::pybind_def) {
                NativeModule& m = bindings[{path, r.module}];
                m.source_path = path;
                m.module_name = r.module;
                const auto devices = binding_devices(r, index);
                m.ops.push_back({r.op, {devices.begin(), devices.end()}, location_of(path, r)});
                binding_snippets[{path, r.op}] = r.snippet;
                continue;
            }
            PendingOp& op = library[r.module][r.op];
            if (auto d = key_device(r)) op.devices.insert(*d);
            const bool is_def = r.kind == Registration::Kind::library_def;
            if (op.location.path.empty() || (is_def && !op.from_def)) {
                op.location = location_of(path, r);
                op.snippet = r.snippet;
                op.from_def = is_def;
            }
            if (is_def || !library_path.count(r.module)) library_path[r.module] = path;
        }
    }
    LinkedOps linked;
    for (auto& [key, module] : bindings) {
        std::map<std::string, std::string> snippets;
        for (const auto& op : module.ops) snippets[op.name] = binding_snippets[{key.first, op.name}];
        add_findings(module, snippets, catalogue, linked.findings);
        linked.modules.push_back(std::move(module));
    }
    for (const auto& [ns, ops] : library) {
        NativeModule module{library_path[ns], "torch.ops." + ns, {}};
        std::map<std::string, std::string> snippets;
        for (const auto& [name, op] : ops) {
            if (op.devices.empty()) continue;  // declared here, implemented nowhere we read
            module.ops.push_back({ns + "::" + name, {op.devices.begin(), op.devices.end()}, op.location});
            snippets[ns + "::" + name] = op.snippet;
        }
        add_findings(module, snippets, catalogue, linked.findings);
        linked.modules.push_back(std::move(module));
    }
    return linked;
}

std::set<std::string> unresolved_callees(const std::map<std::string, TuFacts>& facts_by_path) {
    const FunctionIndex index(facts_by_path);
    std::set<std::string> out;
    for (const auto& [path, facts] : facts_by_path)
        for (const auto& r : facts.registrations)
            for (const auto& c : r.callees)
                if (!c.name.empty() && !index.defines(c.name)) out.insert(short_name(c.name));
    return out;
}

}  // namespace mpsport::cuda
