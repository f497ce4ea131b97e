// The native LibTorch path: a real train step of an exported TorchScript model in C++, observed
// by a RecordFunction callback, written in the same trace format as the Python probe.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace mpsport {

struct NativeStepOptions {
    std::filesystem::path model;    // torch.jit.save'd module
    std::filesystem::path inputs;   // torch.save'd tensor (or tuple of tensors)
    std::filesystem::path targets;  // optional
    std::string loss = "mse";       // mse | cross_entropy
    std::string device = "auto";    // auto | cpu | cuda | mps
    int steps = 1;
    double lr = 0.01;
};

// Throws std::runtime_error naming the file or device when the step cannot run.
nlohmann::json run_native_step(const NativeStepOptions& options);
// `mpsport doctor`: LibTorch version, devices, and a tiny train step on each device.
std::string doctor_report();

}  // namespace mpsport
