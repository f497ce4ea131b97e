#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/rule_schema.hpp"
#include "core/source_text.hpp"

namespace fs = std::filesystem;

namespace mpsport {

int checklist_item(std::string_view category) {
    // 1 MPS built (the environment: torch build, base image, job scripts), 3 devices, 5 CPU
    // fallbacks and speed (op-support: ops without an MPS kernel, sparse layouts), 6 float64/complex/
    // mixed precision, 8 numerics, 9 CUDA-only code and multi-GPU training. Items 2, 4 and 7 are runtime-only.
    static const std::pair<std::string_view, int> table[] = {
        {"environment", 1}, {"device", 3},    {"performance", 5}, {"dtype", 6},      {"numerics", 8},
        {"extension", 9},   {"kernel", 9},    {"dependency", 9},  {"distributed", 9}, {"op-support", 5}};
    for (const auto& [c, item] : table)
        if (c == category) return item;
    return 0;
}

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
    throw RuleError(file.generic_string() + ": " + what);
}

std::string required_string(const YAML::Node& node, const char* key, const fs::path& file) {
    const YAML::Node v = node[key];
    if (!v || !v.IsScalar() || v.as<std::string>().empty())
        fail(file, std::string("field '") + key + "' is missing or not a non-empty string");
    return v.as<std::string>();
}

std::string optional_string(const YAML::Node& node, const char* key) {
    const YAML::Node v = node[key];
    return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

std::vector<std::string> string_list(const YAML::Node& node, const char* key, const fs::path& file) {
    std::vector<std::string> out;
    const YAML::Node v = node[key];
    if (!v) return out;
    if (!v.IsSequence()) fail(file, std::string("field '") + key + "' must be a list of strings");
    for (const auto& item : v) out.push_back(item.as<std::string>());
    return out;
}

double number(const YAML::Node& node, const char* key, double fallback) {
    const YAML::Node v = node[key];
    return v ? v.as<double>() : fallback;
}

bool is_kebab_case(const std::string& id) {
    if (id.empty() || id.front() == '-' || id.back() == '-') return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

// Function-local statics: tests load rules while other translation units are still being initialised.
bool known_engine(const std::string& e) {
    static const std::set<std::string> engines = {"python", "manifest", "lines", "checkpoint", "config", "clang", "runtime"};
    return engines.count(e) > 0;
}
bool known_category(const std::string& c) { return checklist_item(c) != 0; }

Rule parse_rule(const YAML::Node& doc, const fs::path& file) {
    Rule r;
    r.source = file;
    r.id = required_string(doc, "id", file);
    if (!is_kebab_case(r.id)) fail(file, "id '" + r.id + "' is not kebab-case");
    if (file.stem().string() != r.id) fail(file, "id '" + r.id + "' does not match the file name");
    r.engine = required_string(doc, "engine", file);
    if (!known_engine(r.engine)) fail(file, "engine '" + r.engine + "' is not one of python|manifest|lines|checkpoint|config|clang|runtime");
    auto sev = parse_severity(required_string(doc, "severity", file));
    if (!sev) fail(file, "severity must be blocker|major|minor|info");
    r.severity = *sev;
    r.category = required_string(doc, "category", file);
    if (!known_category(r.category)) fail(file, "category '" + r.category + "' is unknown");
    auto impact = parse_verdict_impact(required_string(doc, "verdict_impact", file));
    if (!impact) fail(file, "verdict_impact must be stay|dual|none");
    r.impact = *impact;

    const YAML::Node effort = doc["effort"];
    if (!effort || !effort.IsMap()) fail(file, "field 'effort' is missing");
    r.effort.per = optional_string(effort, "per");
    if (r.effort.per != "site" && r.effort.per != "file" && r.effort.per != "kloc")
        fail(file, "effort.per must be site|file|kloc");
    r.effort.low = number(effort, "low", -1);
    r.effort.high = number(effort, "high", -1);
    if (r.effort.low < 0 || r.effort.high < r.effort.low) fail(file, "effort needs 0 <= low <= high");
    r.effort.setup_low = number(effort, "setup_low", 0);
    r.effort.setup_high = number(effort, "setup_high", r.effort.setup_low);
    r.effort.cap_high = number(effort, "cap_high", 0);

    r.message = required_string(doc, "message", file);
    r.fix = required_string(doc, "fix", file);
    const YAML::Node docs = doc["docs"];
    if (!docs || !docs.IsMap()) fail(file, "field 'docs' (what, why, example) is missing");
    r.docs.what = required_string(docs, "what", file);
    r.docs.why = required_string(docs, "why", file);
    r.docs.example = required_string(docs, "example", file);
    r.references = string_list(doc, "references", file);
    r.triggers = string_list(doc, "triggers", file);
    r.triggers_from = optional_string(doc, "triggers_from");

    if (r.engine == "python") {
        const YAML::Node py = doc["python"];
        if (!py || !py.IsMap()) fail(file, "a python rule needs a 'python' section with 'query' or 'analysis'");
        r.query = optional_string(py, "query");
        r.analysis = optional_string(py, "analysis");
        if (r.query.empty() == r.analysis.empty()) fail(file, "python: give exactly one of 'query' and 'analysis'");
        if (py["guard"]) r.guard = py["guard"].as<std::string>();
        if (r.guard != "downgrade" && r.guard != "mps-aware" && r.guard != "none")
            fail(file, "python.guard must be downgrade|mps-aware|none");
        if (const YAML::Node params = py["params"]) {
            for (const auto& kv : params) r.params[kv.first.as<std::string>()] = string_list(params, kv.first.as<std::string>().c_str(), file);
        }
        if (r.triggers.empty() && r.triggers_from.empty())
            fail(file, "a python rule needs 'triggers' (literals that must occur in a file) or 'triggers_from'");
    } else if (r.engine == "manifest") {
        const YAML::Node m = doc["manifest"];
        if (!m || !m.IsMap()) fail(file, "a manifest rule needs a 'manifest' section");
        r.manifest_check = required_string(m, "check", file);
        r.file_kinds = string_list(m, "files", file);
        if (r.file_kinds.empty()) fail(file, "manifest.files must list at least one file kind");
        if (const YAML::Node params = m["params"]) {
            for (const auto& kv : params) r.params[kv.first.as<std::string>()] = string_list(params, kv.first.as<std::string>().c_str(), file);
        }
    } else if (r.engine == "clang") {
        const YAML::Node c = doc["clang"];
        if (!c || !c.IsMap()) fail(file, "a clang rule needs a 'clang' section with 'matchers' or 'check'");
        r.file_kinds = string_list(c, "files", file);
        r.matchers = string_list(c, "matchers", file);
        r.check = optional_string(c, "check");
        if (r.matchers.empty() == r.check.empty()) fail(file, "clang: give exactly one of 'matchers' and 'check'");
        if (r.file_kinds.empty()) fail(file, "clang.files must list at least one of cuda, cpp");
        for (const auto& kind : r.file_kinds)
            if (kind != "cuda" && kind != "cpp") fail(file, "clang.files: '" + kind + "' is not cuda or cpp");
        if (const YAML::Node params = c["params"]) {
            for (const auto& kv : params) r.params[kv.first.as<std::string>()] = string_list(params, kv.first.as<std::string>().c_str(), file);
        }
    } else if (r.engine == "lines") {
        const YAML::Node l = doc["lines"];
        if (!l || !l.IsMap()) fail(file, "a lines rule needs a 'lines' section with 'files' and 'pattern'");
        r.file_kinds = string_list(l, "files", file);
        r.line_pattern = required_string(l, "pattern", file);
        r.line_skip_comments = l["skip_comments"] && l["skip_comments"].as<bool>();
        if (r.file_kinds.empty()) fail(file, "lines.files must list at least one file kind");
    } else if (r.engine == "checkpoint") {
        const YAML::Node c = doc["checkpoint"];
        if (!c || !c.IsMap()) fail(file, "a checkpoint rule needs a 'checkpoint' section with 'check'");
        r.checkpoint_check = required_string(c, "check", file);
    } else if (r.engine == "config") {
        const YAML::Node c = doc["config"];
        if (!c || !c.IsMap()) fail(file, "a config rule needs a 'config' section with 'keys'");
        for (const char* list : {"keys", "values", "with"}) r.params[list] = string_list(c, list, file);
        if (r.params["keys"].empty()) fail(file, "config.keys must list at least one key");
        try {
            for (const auto& v : r.params["values"]) std::regex check(v);
        } catch (const std::regex_error& e) {
            fail(file, std::string("config.values: ") + e.what());
        }
        if (c["unread"]) {
            const std::string unread = required_string(c, "unread", file);
            const auto s = parse_severity(unread);
            if (!s || *s > Severity::minor) fail(file, "config.unread must be minor or info, not '" + unread + "'");
            r.params["unread"] = {unread};
        }
    }
    return r;
}

WeightRule parse_weight(const YAML::Node& node, const std::string& where, const fs::path& file) {
    WeightRule w;
    static const std::set<std::string> keys = {"severity_drop", "max_severity", "impact_cap", "impact_drop", "why"};
    for (const auto& kv : node)
        if (!keys.count(kv.first.as<std::string>())) fail(file, where + ": unknown key '" + kv.first.as<std::string>() + "'");
    w.severity_drop = node["severity_drop"] ? node["severity_drop"].as<int>() : 0;
    w.why = optional_string(node, "why");
    w.impact_drop = node["impact_drop"] ? node["impact_drop"].as<int>() : 0;
    if (node["max_severity"]) {
        w.max_severity = parse_severity(node["max_severity"].as<std::string>());
        if (!w.max_severity) fail(file, where + ".max_severity must be blocker|major|minor|info");
    }
    if (node["impact_cap"]) {
        w.impact_cap = parse_verdict_impact(node["impact_cap"].as<std::string>());
        if (!w.impact_cap) fail(file, where + ".impact_cap must be stay|dual|none");
    }
    return w;
}

DataReaderVocabulary parse_data_readers(const YAML::Node& node, const fs::path& file) {
    DataReaderVocabulary d;
    d.config_extensions = string_list(node, "config_extensions", file);
    if (node["config_target_keys"]) d.config_target_keys = string_list(node, "config_target_keys", file);
    if (node["config_target_tags"]) d.config_target_tags = string_list(node, "config_target_tags", file);
    d.config_folder_keywords = string_list(node, "config_folder_keywords", file);
    if (node["config_objects"]) d.config_objects = string_list(node, "config_objects", file);
    d.checkpoint_extensions = string_list(node, "checkpoint_extensions", file);
    if (const YAML::Node loads = node["checkpoint_loads"]) {
        if (!loads.IsSequence()) fail(file, "data_readers.checkpoint_loads must be a list of {call, remap, folder}");
        for (const auto& l : loads) {
            CheckpointLoadCall c;
            c.call = required_string(l, "call", file);
            c.remap = optional_string(l, "remap");
            c.folder = l["folder"] && l["folder"].as<bool>();
            c.on_cpu = l["on_cpu"] && l["on_cpu"].as<bool>();
            c.remap_position = l["remap_position"] ? l["remap_position"].as<int>() : 0;
            d.checkpoint_loads.push_back(std::move(c));
        }
    }
    if (node["unread"]) d.unread = parse_weight(node["unread"], "data_readers.unread", file);
    if (node["remapped"]) d.remapped = parse_weight(node["remapped"], "data_readers.remapped", file);
    if (node["unselected"]) d.unselected = parse_weight(node["unselected"], "data_readers.unselected", file);
    return d;
}

ProgramVocabulary parse_program(const YAML::Node& doc, const fs::path& file) {
    ProgramVocabulary p;
    const YAML::Node guards = doc["guards"];
    if (!guards || !guards.IsMap()) fail(file, "expected a 'guards' map");
    GuardVocabulary& vocab = p.guards;
    const std::pair<const char*, std::vector<std::string>*> lists[] = {
        {"device_calls", &vocab.device_calls},           {"device_attributes", &vocab.device_attributes},
        {"device_strings", &vocab.device_strings},       {"mps_names", &vocab.mps_names},
        {"mps_strings", &vocab.mps_strings},             {"distributed_env", &vocab.distributed_env},
        {"distributed_calls", &vocab.distributed_calls}, {"distributed_names", &vocab.distributed_names},
        {"platform_names", &vocab.platform_names},       {"mac_strings", &vocab.mac_strings},
        {"type_checking_names", &vocab.type_checking_names}, {"registry_calls", &vocab.registry_calls},
        {"cluster_strings", &vocab.cluster_strings},
        {"skip_decorators", &vocab.skip_decorators},     {"skip_calls", &vocab.skip_calls},
        {"import_errors", &vocab.import_errors},         {"no_grad_contexts", &vocab.no_grad_contexts},
        {"inference_words", &vocab.inference_words},     {"training_words", &vocab.training_words},
        {"training_methods", &vocab.training_methods},   {"distributed_functions", &vocab.distributed_functions}, {"distributed_keys", &vocab.distributed_keys}, {"device_count_names", &vocab.device_count_names}, {"collective_calls", &vocab.collective_calls},
        {"skip_decorator_names", &vocab.skip_decorator_names}, {"fixture_decorators", &vocab.fixture_decorators},
        {"collect_ignore_names", &vocab.collect_ignore_names}, {"package_checks", &vocab.package_checks}, {"mac_absent_package_words", &vocab.mac_absent_package_words}, {"availability_words", &vocab.availability_words},
        {"device_functions", &vocab.device_functions},   {"exit_calls", &vocab.exit_calls}, {"install_flags", &vocab.install_flags},
        {"device_flags", &vocab.device_flags},           {"option_device_flags", &vocab.option_device_flags}, {"device_index_names", &vocab.device_index_names}, {"device_list_names", &vocab.device_list_names}, {"argparse_objects", &vocab.argparse_objects}, {"device_test_instantiators", &vocab.device_test_instantiators},
        {"implicit_methods", &vocab.implicit_methods},         {"cuda_words", &vocab.cuda_words}, {"option_flag_prefixes", &vocab.option_flag_prefixes}, {"option_objects", &vocab.option_objects}, {"extension_loaders", &vocab.extension_loaders}, {"transparent_decorators", &vocab.transparent_decorators}, {"field_class_decorators", &vocab.field_class_decorators}, {"device_move_methods", &vocab.device_move_methods},
        {"shell_platform_probes", &vocab.shell_platform_probes}, {"shell_linux_strings", &vocab.shell_linux_strings},
        {"shell_cuda_probes", &vocab.shell_cuda_probes}, {"shell_cuda_version_variables", &vocab.shell_cuda_version_variables},
        {"shell_cpu_strings", &vocab.shell_cpu_strings}, {"shell_cuda_values", &vocab.shell_cuda_values}};
    for (const auto& kv : guards) {
        const std::string key = kv.first.as<std::string>();
        auto it = std::find_if(std::begin(lists), std::end(lists), [&](const auto& l) { return key == l.first; });
        if (it == std::end(lists)) fail(file, "guards: unknown key '" + key + "'");
        *it->second = string_list(guards, it->first, file);
    }
    const YAML::Node tooling = doc["tooling"];
    if (!tooling || !tooling.IsMap()) fail(file, "expected a 'tooling' map with 'dirs' and 'files'");
    p.tooling_dirs = string_list(tooling, "dirs", file);
    p.tooling_files = string_list(tooling, "files", file);
    if (tooling["hosted_notebook_metadata"]) p.hosted_notebook_metadata = string_list(tooling, "hosted_notebook_metadata", file);
    if (tooling["hosted_notebook_strings"]) p.hosted_notebook_strings = string_list(tooling, "hosted_notebook_strings", file);
    if (tooling["sampling_entry_words"]) p.sampling_entry_words = string_list(tooling, "sampling_entry_words", file);
    if (tooling["evaluation_entry_words"]) p.evaluation_entry_words = string_list(tooling, "evaluation_entry_words", file);
    if (tooling["sole_run_files"]) p.sole_run_files = string_list(tooling, "sole_run_files", file);
    if (tooling["other_frameworks"]) p.other_frameworks = string_list(tooling, "other_frameworks", file);
    if (tooling["backup_files"]) p.backup_files = string_list(tooling, "backup_files", file);
    if (const YAML::Node gw = doc["guard_weights"]) {
        for (const auto& kv : gw) {
            auto kind = parse_guard_kind(kv.first.as<std::string>());
            if (!kind || *kind == GuardKind::none) fail(file, "guard_weights: unknown guard kind '" + kv.first.as<std::string>() + "'");
            p.guard_weights[*kind] = parse_weight(kv.second, "guard_weights." + kv.first.as<std::string>(), file);
        }
    }
    // A guard kind without a weight would weigh nothing, silently: every kind the analyzer writes has one.
    for (GuardKind g : guard_kinds())
        if (!p.guard_weights.count(g))
            fail(file, "guard_weights: no weight for the guard kind '" + std::string(to_string(g)) + "' (every guard kind the analyzer writes needs one)");
    if (const YAML::Node rw = doc["reach_weights"]) {
        for (const auto& kv : rw) {
            auto reach = parse_reach(kv.first.as<std::string>());
            if (!reach) fail(file, "reach_weights: unknown reach '" + kv.first.as<std::string>() + "'");
            p.reach_weights[*reach] = parse_weight(kv.second, "reach_weights." + kv.first.as<std::string>(), file);
        }
    }
    // `key: {<name>: {<reach>: weight}}`, each name checked by `known` (what it is: `what`)
    auto reach_weights_by = [&](const char* key, bool (*known)(const std::string&), const char* what,
                                std::map<std::string, std::map<Reach, WeightRule>>& out) {
        const YAML::Node by = doc[key];
        if (!by) return;
        for (const auto& who : by) {
            const std::string name = who.first.as<std::string>();
            if (!known(name)) fail(file, std::string(key) + ": '" + name + "' is not " + what);
            for (const auto& kv : who.second) {
                auto reach = parse_reach(kv.first.as<std::string>());
                if (!reach) fail(file, std::string(key) + "." + name + ": unknown reach '" + kv.first.as<std::string>() + "'");
                out[name][*reach] = parse_weight(kv.second, std::string(key) + "." + name + "." + kv.first.as<std::string>(), file);
            }
        }
    };
    reach_weights_by("reach_weights_for", known_category, "a rule category", p.reach_weights_for);
    reach_weights_by("reach_weights_by_file_kind", [](const std::string& k) { return parse_file_kind(k).has_value(); }, "a file kind",
                     p.reach_weights_by_file_kind);
    if (const YAML::Node dr = doc["data_readers"]) p.readers = parse_data_readers(dr, file);
    // `key: {<list_key>: [...], weight: {...}}`: a list of names and the weight they bring.
    auto list_and_weight = [&](const std::string& key, const std::string& list_key, std::vector<std::string>& list, std::optional<WeightRule>& weight) {
        const YAML::Node v = doc[key];
        if (!v) return;
        list = string_list(v, list_key.c_str(), file);
        if (!v["weight"]) fail(file, key + ": expected '" + list_key + "' and 'weight'");
        weight = parse_weight(v["weight"], key + ".weight", file);
    };
    list_and_weight("vendored", "dirs", p.vendored_dirs, p.vendored);
    if (const YAML::Node v = doc["cuda_bound_tooling"]) p.cuda_bound_tooling = parse_weight(v, "cuda_bound_tooling", file);
    if (const YAML::Node v = doc["on_demand_package"]) p.on_demand_package = parse_weight(v, "on_demand_package", file);
    if (const YAML::Node v = doc["vendored_fallback"]) p.vendored_fallback = parse_weight(v, "vendored_fallback", file);
    if (const YAML::Node v = doc["twin_definition"]) p.twin_definition = parse_weight(v, "twin_definition", file);
    if (const YAML::Node v = doc["registry_choice"]) p.registry_choice = parse_weight(v, "registry_choice", file);
    if (const YAML::Node v = doc["no_cuda_sources"]) p.no_cuda_sources = parse_weight(v, "no_cuda_sources", file);
    if (const YAML::Node v = doc["cpp_python_module"]) p.cpp_python_module = parse_weight(v, "cpp_python_module", file);
    if (const YAML::Node v = doc["device_routed_op"]) p.device_routed_op = parse_weight(v, "device_routed_op", file);
    if (const YAML::Node v = doc["container_predictor"]) p.container_predictor = parse_weight(v, "container_predictor", file);
    if (const YAML::Node v = doc["module_level_scripts"]) p.script_setup_calls = string_list(v, "setup_calls", file);
    list_and_weight("build_hosts", "dirs", p.build_host_dirs, p.build_host);
    list_and_weight("cuda_named_tooling", "words", p.cuda_named_words, p.cuda_named_tooling);
    list_and_weight("other_program", "words", p.program_words, p.other_program);
    list_and_weight("kernel_twin", "suffixes", p.kernel_twin_suffixes, p.kernel_twin);
    list_and_weight("scale_out_launch", "rules", p.scale_out_rules, p.scale_out);
    list_and_weight("mps_build", "op_rules", p.mps_build_rules, p.mps_build);
    list_and_weight("kernel_details", "rules", p.kernel_detail_rules, p.kernel_detail);
    if (const YAML::Node v = doc["kernel_details"]) {
        if (!v["into"] || !v["into"].IsScalar()) fail(file, "kernel_details: expected 'into', the rule that reports a kernel");
        p.kernel_rule = v["into"].as<std::string>();
        if (v["cuda_source_rules"]) p.kernel_detail_cuda_rules = string_list(v, "cuda_source_rules", file);
    }
    list_and_weight("package_details", "rules", p.package_detail_rules, p.package_detail);
    if (const YAML::Node v = doc["package_details"]) {
        if (!v["into"] || !v["into"].IsScalar()) fail(file, "package_details: expected 'into', the rule that reports the package's import");
        p.package_detail_rule = v["into"].as<std::string>();
        p.package_detail_packages = string_list(v, "packages", file);
    }
    if (const YAML::Node v = doc["file_kind_weights"]) {
        if (!v.IsMap()) fail(file, "file_kind_weights: expected a map of file kind to weight");
        for (const auto& kv : v) {
            const std::string kind = kv.first.as<std::string>();
            if (!parse_file_kind(kind)) fail(file, "file_kind_weights: unknown file kind '" + kind + "'");
            p.file_kind_weights[kind] = parse_weight(kv.second, "file_kind_weights." + kind, file);
        }
    }
    static const std::set<std::string> known = {"guards",       "tooling",  "guard_weights",    "reach_weights",      "reach_weights_for", "data_readers",
                                                "vendored",     "scale_out_launch", "cuda_bound_tooling", "on_demand_package", "vendored_fallback", "twin_definition", "registry_choice", "no_cuda_sources", "cpp_python_module", "device_routed_op", "mps_build", "kernel_twin", "kernel_details", "package_details", "other_program", "file_kind_weights", "build_hosts", "cuda_named_tooling", "container_predictor", "module_level_scripts",
                                                "reach_weights_by_file_kind"};
    for (const auto& kv : doc)
        if (const std::string key = kv.first.as<std::string>(); !known.count(key)) fail(file, "unknown top-level key '" + key + "'");
    return p;
}

std::string normalise_distribution(std::string_view name) {
    std::string out;
    for (char c : name) out.push_back(c == '_' || c == '.' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}

// Glob with '*' only (any run of characters), on normalised names.
bool glob_match(std::string_view pattern, std::string_view name) {
    const std::size_t star = pattern.find('*');
    if (star == std::string_view::npos) return pattern == name;
    if (name.substr(0, star) != pattern.substr(0, star)) return false;
    const std::string_view rest = pattern.substr(star + 1);
    for (std::size_t i = star; i <= name.size(); ++i)
        if (glob_match(rest, name.substr(i))) return true;
    return false;
}

void parse_package(const YAML::Node& item, const fs::path& file, PackageInfo& p) {
    p.source = file;
    p.import_name = optional_string(item, "import");
    p.mac_build = optional_string(item, "mac_build");
    if (item["cuda_submodules"]) p.cuda_submodules = string_list(item, "cuda_submodules", file);
    if (item["used_through"]) p.used_through = string_list(item, "used_through", file);
    if (item["toggles"]) p.toggles = string_list(item, "toggles", file);
    if (const YAML::Node v = item["imports_on_mac"]) {
        if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false")) fail(file, "package " + p.import_name + ": imports_on_mac must be true or false");
        if (p.import_name.empty()) fail(file, "package: imports_on_mac needs 'import'");
        p.imports_on_mac = v.Scalar() == "true";
    }
    if (const YAML::Node v = item["installs_on_mac"]) {
        if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false")) fail(file, "package " + p.import_name + ": installs_on_mac must be true or false");
        p.installs_on_mac = v.Scalar() == "true";
    }
    for (const auto& t : p.toggles)
        if (std::find(p.used_through.begin(), p.used_through.end(), t) == p.used_through.end())
            fail(file, "package " + p.import_name + ": toggle '" + t + "' must also be listed in used_through");
    if (item["reference_modules"]) p.reference_modules = string_list(item, "reference_modules", file);
    for (const auto& d : string_list(item, "distributions", file)) p.distributions.push_back(normalise_distribution(d));
    if (p.distributions.empty() && !p.import_name.empty()) p.distributions.push_back(normalise_distribution(p.import_name));
    const std::string label = p.import_name.empty() ? (p.distributions.empty() ? "?" : p.distributions.front()) : p.import_name;
    if (p.distributions.empty()) fail(file, "package " + label + ": needs 'distributions' or 'import'");
    p.provides = required_string(item, "provides", file);
    p.alternative = required_string(item, "alternative", file);
    p.why = required_string(item, "why", file);
    auto impact = parse_verdict_impact(required_string(item, "verdict_impact", file));
    if (!impact) fail(file, "package " + label + ": verdict_impact must be stay|dual|none");
    p.impact = *impact;
    const YAML::Node mps = item["mps"];
    if (!mps || !mps.IsMap()) fail(file, "package " + label + ": 'mps' (status, since, note) is missing");
    const std::string status = required_string(mps, "status", file);
    if (status == "none") p.mps = MpsStatus::none;
    else if (status == "partial") p.mps = MpsStatus::partial;
    else if (status == "native") p.mps = MpsStatus::native;
    else fail(file, "package " + label + ": mps.status must be none|partial|native");
    p.mps_since = optional_string(mps, "since");
    p.mps_note = optional_string(mps, "note");
    if (p.mps == MpsStatus::native && p.mps_since.empty()) fail(file, "package " + label + ": mps.status native needs mps.since");
    const YAML::Node effort = item["effort"];
    if (!effort || !effort.IsMap()) fail(file, "package " + label + ": 'effort' (low, high hours) is missing");
    p.effort_low = number(effort, "low", -1);
    p.effort_high = number(effort, "high", -1);
    if (p.effort_low < 0 || p.effort_high < p.effort_low) fail(file, "package " + label + ": effort needs 0 <= low <= high");
}

void parse_packages(const YAML::Node& doc, const fs::path& file, std::vector<PackageInfo>& out) {
    const YAML::Node list = doc["packages"];
    if (!list || !list.IsSequence()) fail(file, "expected a top-level 'packages' list");
    for (const auto& item : list) {
        PackageInfo p;
        parse_package(item, file, p);
        out.push_back(std::move(p));
    }
}

// Rules with `triggers_from: packages` run on any file that mentions a listed import name.
void derive_triggers(std::vector<Rule>& rules, const std::vector<PackageInfo>& packages) {
    std::set<std::string> imports;
    for (const auto& p : packages) {
        if (!p.import_name.empty()) imports.insert(p.import_name);
        imports.insert(p.used_through.begin(), p.used_through.end());
    }
    for (auto& r : rules) {
        if (r.triggers_from.empty()) continue;
        if (r.triggers_from != "packages") fail(r.source, "triggers_from must be 'packages'");
        for (const auto& i : imports)
            if (std::find(r.triggers.begin(), r.triggers.end(), i) == r.triggers.end()) r.triggers.push_back(i);
        if (r.triggers.empty()) fail(r.source, "triggers_from: packages, but no package has an 'import'");
    }
}

}  // namespace

std::string_view to_string(MpsStatus s) {
    switch (s) {
        case MpsStatus::none: return "none";
        case MpsStatus::partial: return "partial";
        case MpsStatus::native: return "native";
    }
    return "none";
}

namespace {

// The rule files of a rules folder, sorted: every *.yaml below it, and which of them sit at its top.
struct RuleFiles {
    std::vector<fs::path> files;
    std::set<fs::path> top_level;
};

RuleFiles list_rule_files(const fs::path& rules_dir) {
    std::error_code ec;
    if (!fs::is_directory(rules_dir, ec))
        throw RuleError(rules_dir.generic_string() + ": rules folder not found (pass --rules DIR or set MPSPORT_RULES)");
    RuleFiles out;
    for (auto it = fs::recursive_directory_iterator(rules_dir, ec); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_regular_file() || it->path().extension() != ".yaml") continue;
        out.files.push_back(it->path());
        if (it.depth() == 0) out.top_level.insert(it->path());
    }
    std::sort(out.files.begin(), out.files.end());
    return out;
}

// rules/mps/ holds the generated op tables, read by the auditor and digested apart (op_tables_digest).
bool is_op_table(const fs::path& file) { return file.parent_path().filename() == "mps"; }

// What RuleCatalogue::digest() hashes: each rule file's path and text, in file order.
void add_to_digest(std::string& input, const fs::path& file, const std::string& text) {
    input += file.generic_string();
    input += text;
}

}  // namespace

std::uint64_t RuleCatalogue::digest_of(const fs::path& rules_dir) {
    const RuleFiles listed = list_rule_files(rules_dir);
    std::string input;
    for (const auto& file : listed.files)
        if (!is_op_table(file)) add_to_digest(input, file, read_file(file));
    return fnv1a64(input);
}

RuleCatalogue RuleCatalogue::load(const fs::path& rules_dir) {
    RuleCatalogue cat;
    cat.m_root = rules_dir;
    const RuleFiles listed = list_rule_files(rules_dir);
    const std::vector<fs::path>& files = listed.files;
    const std::set<fs::path>& top_level_files = listed.top_level;
    const RuleSchemas schemas(rules_dir);

    // Each file is read, parsed, validated and turned into a rule on its own, on every core (YAML
    // parsing and schema validation were a fifth of a pre-commit check); what combines files (ids,
    // the digest, the packages and the program vocabulary) follows in file order, so the first
    // error named is the same whatever the threads did.
    struct Loaded {
        std::string text;
        YAML::Node doc;
        std::optional<Rule> rule;
        std::exception_ptr error;
    };
    std::vector<Loaded> loaded(files.size());
    auto load_one = [&](std::size_t i) {
        const fs::path& file = files[i];
        if (is_op_table(file)) return;
        const std::string family = file.parent_path().filename().string();
        const bool top_level = top_level_files.count(file) > 0;
        Loaded& out = loaded[i];
        try {
            out.text = read_file(file);
            // Checked before anything parses it: the schema validator's UTF-8 reader overruns on bad bytes (found by fuzzing).
            if (auto problem = text_problem(out.text)) throw RuleError(file.generic_string() + ": not a text file: " + *problem);
            try {
                out.doc = YAML::Load(out.text);
            } catch (const YAML::Exception& e) {
                throw RuleError(file.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
            }
            try {
                if (top_level && file.filename() != "program.yaml") fail(file, "unexpected file: rules live in rules/<family>/<id>.yaml");
                schemas.validate(out.doc, top_level ? RuleSchemas::Kind::program : family == "packages" ? RuleSchemas::Kind::packages : RuleSchemas::Kind::rule, file);
                if (!top_level && family != "packages") out.rule = parse_rule(out.doc, file);
            } catch (const YAML::Exception& e) {
                throw RuleError(file.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
            }
        } catch (...) {
            out.error = std::current_exception();
        }
    };
    parallel_for(files.size(), load_one);

    std::string digest_input;
    std::set<std::string> ids;
    bool have_program = false;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const fs::path& file = files[i];
        if (is_op_table(file)) continue;
        const std::string family = file.parent_path().filename().string();
        Loaded& l = loaded[i];
        if (l.error) std::rethrow_exception(l.error);
        add_to_digest(digest_input, file, l.text);
        try {
            if (top_level_files.count(file)) {
                cat.m_program = parse_program(l.doc, file);
                have_program = true;
                continue;
            }
            if (family == "packages") {
                parse_packages(l.doc, file, cat.m_packages);
                continue;
            }
        } catch (const YAML::Exception& e) {
            throw RuleError(file.generic_string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
        }
        if (!ids.insert(l.rule->id).second) fail(file, "duplicate rule id '" + l.rule->id + "'");
        cat.m_rules.push_back(std::move(*l.rule));
    }
    if (cat.m_rules.empty())
        throw RuleError(rules_dir.generic_string() + ": no rule files (<family>/<id>.yaml) found; is this the rules folder?");
    if (!have_program) throw RuleError((rules_dir / "program.yaml").generic_string() + ": missing (the program model's vocabulary)");
    derive_triggers(cat.m_rules, cat.m_packages);
    cat.m_digest = fnv1a64(digest_input);
    return cat;
}

const Rule* RuleCatalogue::find(std::string_view id) const {
    for (const auto& r : m_rules)
        if (r.id == id) return &r;
    return nullptr;
}

const PackageInfo* RuleCatalogue::find_import(std::string_view import_name) const {
    for (const auto& p : m_packages)
        if (!p.import_name.empty() && p.import_name == import_name) return &p;
    return nullptr;
}

const PackageInfo* RuleCatalogue::find_used_through(std::string_view name) const {
    for (const auto& p : m_packages)
        if (std::find(p.used_through.begin(), p.used_through.end(), name) != p.used_through.end()) return &p;
    return nullptr;
}

const PackageInfo* RuleCatalogue::find_distribution(std::string_view name, const std::vector<std::string>& extras) const {
    const std::string wanted = normalise_distribution(name);
    for (const auto& extra : extras) {
        const std::string with_extra = wanted + "[" + normalise_distribution(extra) + "]";
        for (const auto& p : m_packages)
            for (const auto& d : p.distributions)
                if (d.find('[') != std::string::npos && glob_match(d, with_extra)) return &p;
    }
    for (const auto& p : m_packages)
        for (const auto& d : p.distributions)
            if (d.find('[') == std::string::npos && glob_match(d, wanted)) return &p;
    return nullptr;
}

void RuleCatalogue::select(const std::vector<std::string>& ids) {
    for (const auto& id : ids)
        if (!find(id)) throw RuleError("unknown rule id '" + id + "' (see `mpsport rules`)");
    m_rules.erase(std::remove_if(m_rules.begin(), m_rules.end(),
                                 [&](const Rule& r) { return std::find(ids.begin(), ids.end(), r.id) == ids.end(); }),
                  m_rules.end());
    // The effective rule set is part of the cache key: a --select scan must neither serve nor
    // write results under the full catalogue's key.
    std::vector<std::string> kept;
    for (const auto& r : m_rules) kept.push_back(r.id);
    std::sort(kept.begin(), kept.end());
    std::string input = hex64(m_digest) + ":select";
    for (const auto& id : kept) input += ":" + id;
    m_digest = fnv1a64(input);
}

fs::path locate_rules_dir(const std::optional<fs::path>& explicit_dir) {
    if (explicit_dir) return *explicit_dir;
    if (const char* env = std::getenv("MPSPORT_RULES"); env && *env) return env;
    std::error_code ec;
    const fs::path installed = executable_dir() / ".." / "share" / "mpsport" / "rules";
    if (fs::is_directory(installed, ec)) return installed;
    return fs::path(MPSPORT_SOURCE_DIR) / "rules";
}

}  // namespace mpsport
