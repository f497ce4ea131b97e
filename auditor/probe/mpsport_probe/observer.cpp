// mpsport's native op observer: an at::RecordFunction callback built against the user's own
// torch by the probe (observer "native"), loaded with ctypes; mpsport-native's TorchScript step
// includes this file to observe the same way. It aggregates (op, phase, input
// devices, dtypes) in C++, so a traced step costs far less than a Python dispatch mode.
// Built with NDEBUG always: RecordFunction's layout depends on it, and release LibTorch has it.
#include <ATen/record_function.h>

#include <atomic>
#include <cstring>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace {

struct Key {
    std::string op;
    int phase;
    std::string devices;  // comma-separated, in order of first appearance
    std::string dtypes;
    bool operator<(const Key& o) const { return std::tie(op, phase, devices, dtypes) < std::tie(o.op, o.phase, o.devices, o.dtypes); }
};

std::atomic<int> g_phase{0};
std::mutex g_mutex;
std::unique_ptr<std::map<Key, long>> g_ops;  // set while observing
at::CallbackHandle g_handle = 0;

const char* dtype_name(c10::ScalarType t) {
    switch (t) {
        case c10::kFloat: return "float32";
        case c10::kDouble: return "float64";
        case c10::kHalf: return "float16";
        case c10::kBFloat16: return "bfloat16";
        case c10::kComplexFloat: return "complex64";
        case c10::kComplexDouble: return "complex128";
        case c10::kLong: return "int64";
        case c10::kInt: return "int32";
        case c10::kShort: return "int16";
        case c10::kChar: return "int8";
        case c10::kByte: return "uint8";
        case c10::kBool: return "bool";
        default: return c10::toString(t);
    }
}

void add(std::string& list, const std::string& item) {
    if (("," + list + ",").find("," + item + ",") != std::string::npos) return;
    if (!list.empty()) list += ",";
    list += item;
}

void note(Key& k, const at::Tensor& t) {
    // Python numbers reach aten ops as 0-dim double "wrapped number" tensors: not the model's float64.
    if (!t.defined() || t.unsafeGetTensorImpl()->is_wrapped_number()) return;
    add(k.devices, t.device().str());
    add(k.dtypes, dtype_name(t.scalar_type()));
}

// Only ops called from outside any other op count: the aten ops a CPU kernel runs internally (e.g.
// linalg_eig computing in double) say nothing about what the model asks of MPS.
thread_local int t_depth = 0;

// Scopes such as "autograd::engine::evaluate_function: MulBackward0" wrap the aten ops of a backward
// node: only aten ops nest.
bool is_aten(const at::RecordFunction& fn) { return std::strncmp(fn.name(), "aten::", 6) == 0; }

void on_op_end(const at::RecordFunction& fn, at::ObserverContext*) {
    if (is_aten(fn)) --t_depth;
}

std::unique_ptr<at::ObserverContext> on_op(const at::RecordFunction& fn) {
    if (!is_aten(fn) || t_depth++ > 0) return nullptr;
    Key k{fn.name(), g_phase.load(std::memory_order_relaxed), {}, {}};
    for (const c10::IValue& v : fn.inputs()) {
        if (v.isTensor()) note(k, v.toTensor());
        else if (v.isTensorList())
            for (const at::Tensor& t : v.toTensorVector()) note(k, t);
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_ops) ++(*g_ops)[k];
    return nullptr;
}

// Stops observing and hands over what was recorded (nullptr if nothing was running).
std::unique_ptr<std::map<Key, long>> take() {
    at::removeCallback(g_handle);
    std::lock_guard<std::mutex> lock(g_mutex);
    return std::move(g_ops);
}

}  // namespace

extern "C" {

int mpsport_observer_start() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_ops) return 1;
    g_ops = std::make_unique<std::map<Key, long>>();
    g_handle = at::addGlobalCallback(at::RecordFunctionCallback(&on_op, &on_op_end).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
    return 0;
}

void mpsport_observer_phase(int phase) { g_phase.store(phase, std::memory_order_relaxed); }

// Stops observing and writes one line per key: op \t phase \t devices \t dtypes \t count.
int mpsport_observer_stop(const char* path) {
    const std::unique_ptr<std::map<Key, long>> ops = take();
    if (!ops) return 1;
    const std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path, "w"), &std::fclose);
    if (!f) return 2;
    for (const auto& [k, n] : *ops) std::fprintf(f.get(), "%s\t%d\t%s\t%s\t%ld\n", k.op.c_str(), k.phase, k.devices.c_str(), k.dtypes.c_str(), n);
    return 0;
}

}  // extern "C"
