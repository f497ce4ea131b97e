// The commands behind the command line, callable from tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/mps_tables.hpp"

namespace CLI { class App; }

namespace mpsport::cli {

struct ScanArgs {
    std::vector<std::string> paths;
    std::string format = "text";
    std::optional<std::string> output;
    std::string fail_on = "major";
    bool no_ignore = false;
    bool follow = false;
    std::vector<std::string> exclude;
    std::uintmax_t max_file_size = 4u << 20;
    std::uint64_t checkpoint_header_limit = 64u << 20;
    unsigned jobs = 0;
    bool no_cache = false;
    bool full_parse = false;  // every C++/CUDA file through Clang, whole Python files through tree-sitter
    bool timings = false;     // print each phase's wall time on standard error
    std::optional<std::string> cache_dir;
    std::optional<std::string> rules_dir;
    std::vector<std::string> select;
    std::vector<std::string> entries;     // --entry: the program model's entry points
    std::optional<std::string> trace;     // report
    std::string target_torch = kDefaultTargetTorch;  // which MPS op table predicts the code's and the trace's ops
    bool changed = false;                 // check
    std::optional<std::string> baseline;  // check
};

struct AuditArgs {
    std::vector<std::string> command;
    int steps = 1;
    double timeout = 600;
    std::string device = "auto";
    std::string target_torch = kDefaultTargetTorch;
    std::string out = "mpsport-audit";
    std::string compare;
    std::string observer = "dispatch";
    double rtol = 1e-2;  // fp32 on different hardware reduces in different orders: 1% of the largest value
    double atol = 1e-5;
    bool quiet = false;
    std::optional<std::string> rules_dir;
    std::optional<std::string> torchscript;
    std::optional<std::string> example;
    std::optional<std::string> targets;
    std::string loss = "mse";
    std::string remap;  // cuda=cpu | cuda=mps
    double leak_threshold = 0.26;
    bool time = false;
    std::string sweep;  // 8,16,32,64
};

enum class Mode { scan, report, check };

void add_scan_options(CLI::App& cmd, ScanArgs& args);
int run_scan(const ScanArgs& args, Mode mode, bool color);
int run_rules(const std::string& id, const std::optional<std::string>& rules_dir);
// Scans like `report` and prints one finding's import chain, guard, weight and rule docs.
int run_explain(const std::string& fingerprint, const ScanArgs& args);
int run_audit(const AuditArgs& args);
int run_doctor();
int run_tables(const std::optional<std::string>& data_dir, const std::optional<std::string>& rules_dir);

}  // namespace mpsport::cli
