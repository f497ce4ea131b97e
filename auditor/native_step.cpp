// Compiled with NDEBUG always (see CMakeLists.txt): at::RecordFunction's layout has a debug-only
// member, and a translation unit that disagrees with the release LibTorch about NDEBUG reads the
// wrong bytes and trips "Called inputs() outside RecordFunction start callback" on every op.
#include "auditor/native_step.hpp"

#include <ATen/record_function.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <atomic>
#include <cstring>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include "auditor/trace.hpp"
// The same RecordFunction observer the Python probe compiles against the user's torch.
#include "auditor/probe/mpsport_probe/observer.cpp"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/utsname.h>
#endif

namespace fs = std::filesystem;

namespace mpsport {
namespace {

enum Phase { kForward = 0, kBackward = 1, kOptimizer = 2 };
const char* const kPhaseNames[] = {"forward", "backward", "optimizer"};

bool mps_available() { return at::hasMPS(); }

c10::Device pick_device(const std::string& requested) {
    if (requested == "auto") {
        if (torch::cuda::is_available()) return c10::Device(c10::kCUDA, 0);
        if (mps_available()) return c10::Device(c10::kMPS);
        return c10::Device(c10::kCPU);
    }
    if (requested == "cuda" && !torch::cuda::is_available()) throw std::runtime_error("--device cuda: this LibTorch sees no CUDA device");
    if (requested == "mps" && !mps_available()) throw std::runtime_error("--device mps: this LibTorch has no MPS device");
    return c10::Device(requested);
}

void synchronize(const c10::Device& d) {
    if (d.is_cuda()) torch::cuda::synchronize();
}

c10::IValue load_ivalue(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.generic_string() + ": cannot open");
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        return torch::jit::pickle_load(bytes);
    } catch (const c10::Error& e) {
        throw std::runtime_error(path.generic_string() + ": not a file written by torch.save (" + e.what_without_backtrace() + ")");
    }
}

std::vector<at::Tensor> tensors_of(const c10::IValue& v) {
    std::vector<at::Tensor> out;
    if (v.isTensor()) out.push_back(v.toTensor());
    else if (v.isTuple())
        for (const auto& e : v.toTupleRef().elements())
            if (e.isTensor()) out.push_back(e.toTensor());
    if (v.isList())
        for (const auto& e : v.toListRef())
            if (e.isTensor()) out.push_back(e.toTensor());
    return out;
}

nlohmann::json role(const std::vector<at::Tensor>& ts) {
    std::set<std::string> devices, dtypes;
    for (const auto& t : ts) {
        if (!t.defined()) continue;
        devices.insert(t.device().str());
        dtypes.insert(dtype_name(t.scalar_type()));
    }
    return {{"devices", std::vector<std::string>(devices.begin(), devices.end())},
            {"dtypes", std::vector<std::string>(dtypes.begin(), dtypes.end())}};
}

nlohmann::json environment(const c10::Device& device) {
    nlohmann::json env;
#if defined(__unix__) || defined(__APPLE__)
    utsname u{};
    if (uname(&u) == 0) {
        env["system"] = u.sysname;
        env["machine"] = u.machine;
    }
#endif
    env["torch"] = TORCH_VERSION;
    env["python"] = "";
    env["cuda_built"] = torch::cuda::is_available() || at::hasCUDA();
    env["cuda_available"] = torch::cuda::is_available();
    env["mps_built"] = at::hasMPS();
    env["mps_available"] = mps_available();
    env["device"] = device.str();
    env["dummy_tensor_device"] = torch::zeros({1}, torch::TensorOptions().device(device)).device().str();
    return env;
}

struct StepResult {
    at::Tensor loss;
    at::Tensor output;
};

StepResult train_step(torch::jit::script::Module& module, torch::optim::Optimizer& opt, const std::vector<c10::IValue>& inputs,
                      const at::Tensor& target, const std::string& loss_kind) {
    mpsport_observer_phase(kForward);
    opt.zero_grad();
    at::Tensor out = module.forward(inputs).toTensor();
    at::Tensor loss;
    if (loss_kind == "cross_entropy") loss = torch::nn::functional::cross_entropy(out, target);
    else loss = torch::mse_loss(out, target.defined() ? target : torch::zeros_like(out));
    mpsport_observer_phase(kBackward);
    loss.backward();
    mpsport_observer_phase(kOptimizer);
    opt.step();
    mpsport_observer_phase(kForward);
    return {loss, out};
}

}  // namespace

nlohmann::json run_native_step(const NativeStepOptions& o) {
    if (o.loss != "mse" && o.loss != "cross_entropy") throw std::runtime_error("--loss must be mse or cross_entropy");
    const c10::Device device = pick_device(o.device);
    torch::jit::script::Module module;
    try {
        module = torch::jit::load(o.model.string(), device);
    } catch (const c10::Error& e) {
        throw std::runtime_error(o.model.generic_string() + ": not a TorchScript module (torch.jit.save it): " + e.what_without_backtrace());
    }
    module.train();
    std::vector<c10::IValue> inputs;
    std::vector<at::Tensor> input_tensors;
    for (auto& t : tensors_of(load_ivalue(o.inputs))) {
        input_tensors.push_back(t.to(device));
        inputs.emplace_back(input_tensors.back());
    }
    if (inputs.empty()) throw std::runtime_error(o.inputs.generic_string() + ": holds no tensor");
    at::Tensor target;
    if (!o.targets.empty()) {
        auto ts = tensors_of(load_ivalue(o.targets));
        if (ts.empty()) throw std::runtime_error(o.targets.generic_string() + ": holds no tensor");
        target = ts.front().to(device);
    }
    std::vector<at::Tensor> params;
    for (const auto& p : module.parameters()) params.push_back(p);
    if (params.empty()) throw std::runtime_error(o.model.generic_string() + ": the module has no parameters to train");
    torch::optim::SGD opt(params, torch::optim::SGDOptions(o.lr).momentum(0.9));

    if (mpsport_observer_start() != 0) throw std::runtime_error("the op observer is already running");
    StepResult last;
    int done = 0;
    std::string error;
    try {
        for (; done < o.steps; ++done) last = train_step(module, opt, inputs, target, o.loss);
        synchronize(device);
    } catch (const c10::Error& e) {
        error = e.what_without_backtrace();
    }
    const std::unique_ptr<std::map<Key, long>> ops(take());

    nlohmann::json trace = {{"schema", kTraceSchema}, {"producer", "native-libtorch"}};
    trace["env"] = environment(device);
    trace["device"] = device.str();
    trace["status"] = error.empty() ? "complete" : "incomplete";
    trace["reason"] = error.empty() ? "" : "the step failed after " + std::to_string(done) + " step(s): " + error;
    trace["steps"] = {{"requested", o.steps}, {"completed", done}, {"forward", done > 0 || last.output.defined()}, {"backward", done > 0}};
    if (done > 0) {
        std::vector<at::Tensor> grads;
        for (const auto& p : params) grads.push_back(p.grad());
        std::vector<at::Tensor> state;
        for (const auto& [key, s] : opt.state()) {
            (void)key;
            const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(s.get());
            if (sgd) state.push_back(sgd->momentum_buffer());
        }
        trace["roles"] = {{"params", role(params)},   {"grads", role(grads)},  {"optimizer_state", role(state)},
                          {"inputs", role(input_tensors)}, {"outputs", role({last.output})}, {"loss", role({last.loss})}};
        if (target.defined()) trace["roles"]["targets"] = role({target});
    }
    nlohmann::json op_list = nlohmann::json::array();
    auto split = [](const std::string& list) {
        std::vector<std::string> out;
        for (std::size_t b = 0; b < list.size();) {
            const std::size_t e = std::min(list.find(',', b), list.size());
            out.push_back(list.substr(b, e - b));
            b = e + 1;
        }
        return out;
    };
    for (const auto& [k, n] : *ops)
        op_list.push_back({{"op", k.op}, {"phase", kPhaseNames[k.phase]}, {"devices", split(k.devices)}, {"dtypes", split(k.dtypes)},
                           {"count", n}, {"first_frame", ""}});
    trace["ops"] = op_list;
    trace["mps_messages"] = nlohmann::json::array();

    if (done > 0) {
        // One more step, unobserved and timed.
        synchronize(device);
        const auto t0 = std::chrono::steady_clock::now();
        train_step(module, opt, inputs, target, o.loss);
        synchronize(device);
        trace["timing"] = {{"unobserved_step_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
        // Checkpoint round-trip: parameters saved from the device, restored on the CPU.
        const fs::path tmp = fs::temp_directory_path() / ("mpsport-native-ckpt-" + std::to_string(std::random_device{}()) + ".pt");
        std::vector<at::Tensor> saved;
        for (const auto& p : params) saved.push_back(p.detach());
        std::string detail;
        bool ok = true;
        try {
            torch::save(saved, tmp.string());
            std::vector<at::Tensor> loaded;
            torch::load(loaded, tmp.string(), c10::Device(c10::kCPU));
            ok = loaded.size() == saved.size();
            for (std::size_t i = 0; ok && i < saved.size(); ++i)
                ok = loaded[i].sizes() == saved[i].sizes() && loaded[i].scalar_type() == saved[i].scalar_type();
            detail = std::to_string(saved.size()) + " parameter tensors saved from " + device.str() +
                     (ok ? " and restored on cpu with the same shapes and dtypes" : ": shapes or dtypes differ after loading");
        } catch (const c10::Error& e) {
            ok = false;
            detail = std::string("save/load failed: ") + e.what_without_backtrace();
        }
        std::error_code ec;
        fs::remove(tmp, ec);
        trace["checkpoint"] = {{"ok", ok}, {"detail", detail}, {"tensors", saved.size()}};
    }
    return trace;
}

std::string doctor_report() {
    std::ostringstream out;
    out << "mpsport doctor (LibTorch " << TORCH_VERSION << ")\n";
    out << "  CUDA available: " << (torch::cuda::is_available() ? "yes (" + std::to_string(torch::cuda::device_count()) + " device(s))" : "no")
        << "\n  MPS available:  " << (mps_available() ? "yes" : "no") << "\n";
    std::vector<c10::Device> devices = {c10::Device(c10::kCPU)};
    if (torch::cuda::is_available()) devices.emplace_back(c10::kCUDA, 0);
    if (mps_available()) devices.emplace_back(c10::kMPS);
    for (const auto& d : devices) {
        try {
            torch::manual_seed(0);
            torch::nn::Linear model(16, 1);
            model->to(d);
            torch::optim::SGD opt(model->parameters(), 0.1);
            auto x = torch::randn({64, 16}).to(d);
            auto y = x.sum(1, true);
            double first = 0, last = 0;
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < 20; ++i) {
                opt.zero_grad();
                auto loss = torch::mse_loss(model->forward(x), y);
                loss.backward();
                opt.step();
                (i == 0 ? first : last) = loss.item<double>();
            }
            synchronize(d);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            out << "  " << d.str() << ": 20 train steps ok, loss " << first << " -> " << last << " in " << ms << " ms"
                << (last < first ? "" : "  (loss did not fall!)") << "\n";
        } catch (const c10::Error& e) {
            out << "  " << d.str() << ": FAILED: " << e.what_without_backtrace() << "\n";
        }
    }
    return out.str();
}

}  // namespace mpsport
