// Does a float64 tensor meet a device? MPS has no float64, but a float64 tensor made on the CPU and
// cast before it reaches a device (a beta schedule `.float()`-ed before `register_buffer`, NumPy
// statistics that are only logged) is fine. The analysis follows the tensor within its function
// (or the module, for module-level code) and through the names it is assigned to:
//   - made with `device=` (not "cpu"), passed to `.to(device)`, `.cuda()`, `register_buffer`,
//     `nn.Parameter`: a device float64;
//   - `.double()` / `.to(torch.float64)` of a tensor that was not made on the CPU in this function:
//     a device float64 (its device is unknown, so the analysis assumes the worst);
//   - made on the CPU, then cast (`.float()`, `.half()`, `.to(torch.float32)`), turned into Python
//     or NumPy values (`.item()`, `.tolist()`, `.numpy()`), or never sent to a device: a host
//     float64, not reported;
//   - returned by a module-level function: followed from each call of it in the same file (a float64
//     beta schedule that the model's __init__ registers as a buffer is a device float64);
//   - `.double()` of a tensor of unknown device, bound to a name that the function later turns into a
//     NumPy array as it is (`x.numpy()`, no `.cpu()` first): `.numpy()` raises on any device tensor,
//     so the code holds a CPU tensor there: a host float64.
// A conversion straight back to the CPU (`x.double().cpu()`) is a device float64 whose fix is to
// swap the two calls: reported, with no verdict impact.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/python/syntax.hpp"
#include "core/finding.hpp"

namespace mpsport::python {

enum class Float64Flow { device, host, device_then_cpu };

// `node` is the float64 match: `torch.float64` / "float64" as a dtype argument, or a `.double()` call.
// `origin`, when given, receives the call of a function of the lab's own that a `device` result's tensor
// came from, where one is known (`new_state_dict = load_state_dict(c, args.use_ema)`). `via`, when given,
// receives how a tensor that a module-level function of the file returns reaches the device by its call.
Float64Flow float64_flow(TSNode node, const ModuleFacts& facts, CallOrigin* origin = nullptr, std::string* via = nullptr);

// The first call of one of `collectives` (qualified names: torch.distributed.all_reduce) that the function
// around `node` makes unconditionally, passing it the name `node`'s tensor is bound to, and its line;
// nullopt at module level or with none.
std::optional<std::pair<std::string, int>> collective_in_function(TSNode node, const ModuleFacts& facts, const std::vector<std::string>& collectives);

}  // namespace mpsport::python
