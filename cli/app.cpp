#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "core/rule_catalogue.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace mpsport::cli {
namespace {

bool stdout_is_tty() {
#if defined(__unix__) || defined(__APPLE__)
    return isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
#else
    return false;
#endif
}

}  // namespace

void add_scan_options(CLI::App& cmd, ScanArgs& a) {
    cmd.add_option("--format", a.format, "Output format: text, json, sarif, md, html")->capture_default_str();
    cmd.add_option("--output,-o", a.output, "Write the report to FILE (atomically) instead of standard output");
    cmd.add_option("--fail-on", a.fail_on, "Exit 1 when a finding is at or above: blocker, major, minor, info, none")->capture_default_str();
    cmd.add_flag("--no-ignore", a.no_ignore, "Do not respect .gitignore / .mpsportignore");
    cmd.add_flag("--follow", a.follow, "Follow symbolic links (loops are detected and skipped)");
    cmd.add_option("--exclude", a.exclude, "Extra gitignore-style pattern to skip (repeatable)")->allow_extra_args(false);
    cmd.add_option("--max-file-size", a.max_file_size, "Skip files larger than this many bytes")->capture_default_str();
    cmd.add_option("--checkpoint-header-limit", a.checkpoint_header_limit,
                   "Read at most this many bytes of a checkpoint's headers (zip directory, data.pkl, safetensors JSON); tensor data is never read")
        ->capture_default_str();
    cmd.add_option("--jobs,-j", a.jobs, "Worker threads (0: one per core)")->capture_default_str();
    cmd.add_flag("--no-cache", a.no_cache, "Do not read or write the scan cache");
    cmd.add_flag("--full-parse", a.full_parse,
                 "Parse every C++/CUDA file with Clang, also those that name nothing a rule looks for, and whole Python files, not "
                 "only the statements that can match (slower; the same findings)");
    cmd.add_flag("--timings", a.timings, "Print the wall time of each phase of the scan on standard error");
    cmd.add_option("--cache-dir", a.cache_dir, "Where the scan cache lives (default: PATH/.mpsport_cache)");
    cmd.add_option("--rules", a.rules_dir, "Rules folder (default: the bundled rules)");
    cmd.add_option("--target-torch", a.target_torch, "PyTorch version whose MPS op tables predict the ops of the code (and of --trace)")
        ->check(CLI::IsMember(bundled_torch_versions()))
        ->capture_default_str();
    cmd.add_option("--select", a.select, "Only these rule ids (repeatable, or comma-separated)")->delimiter(',')->allow_extra_args(false);
    cmd.add_option("--entry", a.entries,
                   "An entry point of the training run (repeatable): replaces the discovered ones (__main__ blocks, console "
                   "scripts, commands in shell/Docker/Make files and READMEs, notebooks)")
        ->allow_extra_args(false);
}

int run(int argc, char** argv) {
    CLI::App app{"mpsport: can this PyTorch repository move from Linux/CUDA to an Apple Silicon Mac (MPS), and at what cost?"};
    app.set_version_flag("--version", std::string("mpsport ") + MPSPORT_VERSION);
    app.require_subcommand(1);

    ScanArgs scan_args;
    auto* scan = app.add_subcommand("scan", "Static pass over a repository or files; prints findings");
    scan->add_option("paths", scan_args.paths, "Folders or files to scan (default: .)");
    add_scan_options(*scan, scan_args);

    ScanArgs report_args;
    auto* report = app.add_subcommand("report", "Scan (+ an optional audit trace) -> checklist, verdict, effort");
    report->add_option("paths", report_args.paths, "Folders or files to scan (default: .)");
    report->add_option("--trace", report_args.trace, "An audit trace (trace.json) to combine with the scan");
    add_scan_options(*report, report_args);
    report_args.fail_on = "none";

    ScanArgs check_args;
    auto* check = app.add_subcommand("check", "Pre-commit / PR gate: only what changed or is new");
    check->add_option("paths", check_args.paths, "Files to check (as pre-commit passes them)");
    check->add_flag("--changed", check_args.changed, "Check the files git reports as changed or untracked");
    check->add_option("--baseline", check_args.baseline, "A JSON report: findings already in it are not reported");
    add_scan_options(*check, check_args);

    ScanArgs explain_args;
    std::string fingerprint;
    auto* explain = app.add_subcommand("explain", "Why a finding is there: its import chain from an entry point, its guard, its weight, the rule's docs");
    explain->add_option("fingerprint", fingerprint, "The finding's fingerprint (from JSON/SARIF reports)")->required();
    explain->add_option("paths", explain_args.paths, "The folder that was scanned (default: .)");
    add_scan_options(*explain, explain_args);

    std::string rule_id;
    std::optional<std::string> rules_dir_for_list;
    auto* rules = app.add_subcommand("rules", "List rules, or explain one");
    rules->add_option("id", rule_id, "A rule id");
    rules->add_option("--rules", rules_dir_for_list, "Rules folder (default: the bundled rules)");

    AuditArgs audit_args;
    auto* audit = app.add_subcommand("audit", "Run your training command for one real step with the probe; trace and MPS prediction");
    audit->add_option("--steps", audit_args.steps, "Training steps to trace (one more runs unobserved, for timing)")->capture_default_str();
    audit->add_option("--timeout", audit_args.timeout, "Seconds before the command's process group is stopped")->capture_default_str();
    audit->add_option("--device", audit_args.device, "Device the step should run on: auto, cpu, cuda, mps")->capture_default_str();
    audit->add_option("--target-torch", audit_args.target_torch, "PyTorch version whose MPS op table predicts the ops")
        ->check(CLI::IsMember(bundled_torch_versions()))
        ->capture_default_str();
    audit->add_option("--out", audit_args.out, "Folder for trace.json")->capture_default_str();
    audit->add_option("--compare", audit_args.compare, "cpu: replay the first step on the CPU and compare loss, outputs and updates")
        ->check(CLI::IsMember({"", "cpu"}));
    audit->add_option("--observer", audit_args.observer,
                      "dispatch: every aten overload with devices, dtypes and user frame; native: a C++ RecordFunction observer "
                      "built against your torch (names, devices, dtypes; lowest overhead); profiler: names and dtypes")
        ->check(CLI::IsMember({"dispatch", "native", "profiler"}))
        ->capture_default_str();
    audit->add_option("--rtol", audit_args.rtol, "Relative tolerance of --compare")->capture_default_str();
    audit->add_option("--atol", audit_args.atol, "Absolute tolerance of --compare")->capture_default_str();
    audit->add_option("--remap", audit_args.remap,
                      "Trial port: cuda=cpu or cuda=mps redirects the script's CUDA requests to that device (each one recorded)");
    audit->add_option("--leak-threshold", audit_args.leak_threshold,
                      "Memory rise from the first to the last step flagged as a suspected leak (0.26 = 26%)")->capture_default_str();
    audit->add_flag("--time", audit_args.time, "With --compare cpu: time the step on the CPU too, and split data loader and step");
    audit->add_option("--sweep", audit_args.sweep, "Batch sizes, e.g. 8,16,32,64: one audit each, {batch} in the command is replaced");
    audit->add_flag("--quiet", audit_args.quiet, "Do not stream the command's output");
    audit->add_option("--rules", audit_args.rules_dir, "Rules folder (default: the bundled rules)");
    audit->add_option("--torchscript", audit_args.torchscript, "Native LibTorch path: a torch.jit.save'd model");
    audit->add_option("--example", audit_args.example, "With --torchscript: torch.save'd example input(s)");
    audit->add_option("--targets", audit_args.targets, "With --torchscript: torch.save'd targets");
    audit->add_option("--loss", audit_args.loss, "With --torchscript: mse or cross_entropy")->check(CLI::IsMember({"mse", "cross_entropy"}));
    audit->add_option("command", audit_args.command, "The training command, after --");

    auto* doctor = app.add_subcommand("doctor", "Environment gate: a tiny C++ LibTorch train step on every device this machine has");

    std::optional<std::string> tables_data, tables_rules;
    auto* tables = app.add_subcommand("tables", "Regenerate rules/mps/ op-support tables from PyTorch's native_functions.yaml and common_mps.py");
    tables->add_option("--data", tables_data, "Folder with native_functions-<version>.yaml and common_mps-<version>.py.txt");
    tables->add_option("--rules", tables_rules, "Rules folder to write mps/ into (default: the bundled rules)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }

    try {
        if (*scan) return run_scan(scan_args, Mode::scan, stdout_is_tty());
        if (*report) return run_scan(report_args, Mode::report, stdout_is_tty());
        if (*check) return run_scan(check_args, Mode::check, stdout_is_tty());
        if (*rules) return run_rules(rule_id, rules_dir_for_list);
        if (*explain) return run_explain(fingerprint, explain_args);
        if (*tables) return run_tables(tables_data, tables_rules);
        if (*audit) return run_audit(audit_args);
        if (*doctor) return run_doctor();
        return 2;
    } catch (const RuleError& e) {
        std::cerr << "mpsport: rule catalogue error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "mpsport: error: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace mpsport::cli
