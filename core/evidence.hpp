// Runtime facts from one audited train step (read from an auditor trace), as the reports use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mpsport {

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
};

}  // namespace mpsport
