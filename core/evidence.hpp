// Runtime facts from one audited train step (read from an auditor trace), as the reports use them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpsport {

// The seed guides' thresholds: memory rising more than 26% from the first to the last observed step is a
// suspected leak (the default of --leak-threshold); an accelerator step less than 22% faster than the
// CPU's points at the data pipeline or host-device copies.
inline constexpr double kLeakRise = 0.26;
inline constexpr double kMinSpeedup = 0.22;

struct OpUse {
    std::string op;      // aten overload, e.g. aten::linalg_eig
    std::string phase;   // forward | backward | optimizer | other
    std::string devices; // e.g. "cpu" or "cuda:0,cpu"
    std::string dtypes;  // e.g. "float32,float64"
    long count = 0;
    std::string first_frame;  // file:line of the first user-code frame
    std::string mps_status;   // native | fallback | unsupported-dtype | unknown (predicted from rules/mps)
    std::string mps_note;
    std::string finding;  // fingerprint of the static finding of the same op at the same frame, if any
    std::vector<long> per_step;  // calls in each traced step (dispatch observer); step 1 includes set-up
};

// `--remap cuda=cpu|mps`: a CUDA request the probe sent to the target device instead.
struct Redirect {
    std::string api;          // e.g. Tensor.cuda(), torch.cuda.synchronize(), init_process_group("nccl")
    std::string to;           // what it became: cpu, gloo, torch.autocast('cpu'), no effect on cpu
    long count = 0;
    std::string first_frame;  // file:line of the first user-code call
    std::string finding;      // fingerprint of the finding it was merged into (reports/op_evidence.cpp)
};

// What the remap could not redirect: the trial port's blocker, with the exception and the caller.
struct RemapBlocked {
    std::string kind;  // cuda-extension | triton | cuda-graphs | cuda-only-api
    std::string api;   // the extension function, or the source line of the call
    std::string exception;
    std::string frame;
};

// Memory per step: accelerator-allocated bytes when the accelerator allocated any, else RSS.
struct MemoryWatermark {
    std::string series;  // accelerator | rss
    std::vector<double> bytes;
    double rise = 0;       // (last - first) / first
    double threshold = 0;  // a rise above it is a suspected leak
    bool leak = false;
};

// `--compare cpu --time`: one iteration on the accelerator against the same on the CPU.
struct TimeAgainstCpu {
    double accelerator_iteration_s = 0, accelerator_step_s = 0, data_s = 0, cpu_step_s = 0, cpu_iteration_s = 0;
    double faster = 0;  // 1 - accelerator / cpu iteration time
    bool bottleneck = false;  // less than kMinSpeedup faster: data pipeline or host-device copies
};

struct Collective {
    std::string op;
    long count = 0;  // summed over ranks
    std::string first_frame;
};

struct Distributed {
    int world_size = 0;
    std::string backend;
    int ranks_traced = 0;
    int ranks_complete = 0;
    int ddp_wraps = 0;
    std::vector<Collective> collectives;
    // Builtin C++ DDP comm hooks the probe could not replace with a counted Python twin.
    std::vector<std::string> uncounted_comm_hooks;
};

// `--sweep 8,16,32`: one audited run per batch size.
struct SweepPoint {
    int batch = 0;
    bool complete = false;
    std::string reason;
    double step_s = 0;       // the unobserved step
    double throughput = 0;   // samples per second: batch / step_s
    double rss_peak_bytes = 0;
    double accelerator_bytes = 0;
};

struct RolePlacement {
    std::string role;  // params | grads | optimizer_state | inputs | targets | outputs | loss
    std::vector<std::string> devices;
    std::vector<std::string> dtypes;
};

struct Evidence {
    std::string trace_path;
    bool complete = false;
    std::string incomplete_reason;
    std::string device;  // the device the step ran on
    std::string torch_version;
    std::string python_version;
    std::string platform;
    bool mps_built = false;
    bool mps_available = false;
    bool predicted = false;  // MPS behaviour predicted from the op tables (no MPS on this host)
    std::string target_torch;
    int optimizer_steps = 0;
    bool forward = false;
    bool backward = false;
    std::vector<RolePlacement> roles;
    std::vector<OpUse> ops;  // only ops that matter for MPS (fallback, unsupported dtype, unknown)
    std::vector<std::string> fallback_warnings;  // ops named by MPS fallback warnings / NotImplementedErrors
    std::vector<std::string> float64_ops;        // ops that ran with float64/complex128 tensors
    std::optional<bool> checkpoint_ok;
    std::string checkpoint_detail;
    std::optional<bool> numerics_ok;
    std::string numerics_detail;
    double step_seconds = 0;
    std::vector<std::pair<std::string, int>> step_kinds;  // optimizer, closure optimizer, GradScaler.step, manual update
    int backwards = 0;
    std::string remap_target;  // "" when the audit did not remap
    std::vector<Redirect> redirects;
    std::vector<RemapBlocked> blocked;
    std::optional<MemoryWatermark> watermark;
    std::optional<TimeAgainstCpu> time_against_cpu;
    std::vector<double> data_s_per_step;
    std::vector<std::pair<std::string, std::string>> record;  // the reproducibility record, in print order
    std::optional<Distributed> distributed;
    std::vector<SweepPoint> sweep;
};

}  // namespace mpsport
