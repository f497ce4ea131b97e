// The rules cache: a loaded RuleCatalogue kept as CBOR, so that a pre-commit check does not parse
// and schema-check the rule files' YAML on every run (RuleCatalogue::load_cached).
#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"

namespace fs = std::filesystem;

namespace nlohmann {
// Paths as their native string, whether or not this nlohmann was built with <filesystem> support.
template <>
struct adl_serializer<std::filesystem::path> {
    template <class Json>
    static void to_json(Json& j, const std::filesystem::path& p) {
        j = p.string();
    }
    template <class Json>
    static void from_json(const Json& j, std::filesystem::path& p) {
        p = std::filesystem::path(j.template get<std::string>());
    }
};
template <class T>
struct adl_serializer<std::optional<T>> {
    template <class Json>
    static void to_json(Json& j, const std::optional<T>& v) {
        if (v) j = *v;
        else j = nullptr;
    }
    template <class Json>
    static void from_json(const Json& j, std::optional<T>& v) {
        if (j.is_null()) v.reset();
        else v = j.template get<T>();
    }
};
}  // namespace nlohmann

namespace mpsport {
namespace {

// The number of members of an aggregate, counted at compile time (the largest N for which T{x1..xN}
// compiles with xi convertible to anything): each list below is checked against its struct, so a
// member added to a struct and not to its list is a compile error, never a field the cache drops.
struct AnyField {
    template <class T>
    constexpr operator T&() const noexcept;
};
template <class T, class... A>
constexpr auto initialisable(int) -> decltype(T{std::declval<A>()...}, true) {
    return true;
}
template <class T, class... A>
constexpr bool initialisable(...) {
    return false;
}
template <class T, std::size_t... I>
constexpr bool initialisable_with(std::index_sequence<I...>) {
    return initialisable<T, decltype((void)I, AnyField{})...>(0);
}
template <class T, std::size_t N = 0>
constexpr std::size_t field_count() {
    if constexpr (initialisable_with<T>(std::make_index_sequence<N + 1>{})) return field_count<T, N + 1>();
    else return N;
}

}  // namespace

#define MPSPORT_CACHED_FIELDS(Type, count, ...)                                                          \
    static_assert(field_count<Type>() == (count), #Type " changed: list its members for the rules cache"); \
    NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Type, __VA_ARGS__)

MPSPORT_CACHED_FIELDS(EffortModel, 6, per, low, high, setup_low, setup_high, cap_high)
MPSPORT_CACHED_FIELDS(RuleDocs, 3, what, why, example)
MPSPORT_CACHED_FIELDS(Rule, 24, id, engine, severity, category, impact, effort, message, fix, docs, references, triggers,
                      triggers_from, query, analysis, guard, manifest_check, file_kinds, line_pattern, line_skip_comments,
                      checkpoint_check, matchers, check, params, source)
MPSPORT_CACHED_FIELDS(GuardVocabulary, 53, device_calls, device_attributes, device_flags, option_device_flags, device_index_names, device_list_names, argparse_objects, device_strings, mps_names, mps_strings,
                      distributed_env, distributed_calls, distributed_names, distributed_keys, device_count_names, distributed_functions, collective_calls,
                      package_checks, mac_absent_package_words, availability_words, device_functions, platform_names, type_checking_names, registry_calls, mac_strings,
                      cluster_strings, shell_platform_probes, shell_linux_strings, shell_cuda_probes,
                      shell_cuda_version_variables, shell_cpu_strings, shell_cuda_values, skip_decorators, skip_decorator_names, skip_calls,
                      device_test_instantiators, fixture_decorators, collect_ignore_names, import_errors, exit_calls,
                      install_flags, cuda_words, option_flag_prefixes, option_objects, extension_loaders,
                      transparent_decorators, field_class_decorators, device_move_methods, implicit_methods,
                      no_grad_contexts, inference_words, training_words, training_methods)
MPSPORT_CACHED_FIELDS(WeightRule, 5, severity_drop, max_severity, impact_cap, impact_drop, why)
MPSPORT_CACHED_FIELDS(CheckpointLoadCall, 5, call, remap, remap_position, folder, on_cpu)
MPSPORT_CACHED_FIELDS(DataReaderVocabulary, 10, config_extensions, config_folder_keywords, config_target_keys, config_target_tags, config_objects,
                      checkpoint_extensions, checkpoint_loads, unread, remapped, unselected)
MPSPORT_CACHED_FIELDS(ProgramVocabulary, 48, guards, tooling_dirs, tooling_files, hosted_notebook_metadata,
                      hosted_notebook_strings, sampling_entry_words, evaluation_entry_words, sole_run_files,
                      other_frameworks, backup_files, guard_weights, reach_weights, reach_weights_for, reach_weights_by_file_kind, readers,
                      vendored_dirs, vendored, cuda_bound_tooling, on_demand_package, vendored_fallback, no_cuda_sources, cpp_python_module,
                      device_routed_op, twin_definition, registry_choice, kernel_twin_suffixes, kernel_twin, other_program, program_words,
                      build_host_dirs, build_host, container_predictor, script_setup_calls, kernel_rule, kernel_detail_rules, kernel_detail_cuda_rules, kernel_detail, package_detail_rule,
                      package_detail_packages, package_detail_rules, package_detail, scale_out_rules, scale_out,
                      mps_build_rules, mps_build, file_kind_weights, cuda_named_words, cuda_named_tooling)
MPSPORT_CACHED_FIELDS(PackageInfo, 19, import_name, mac_build, cuda_submodules, reference_modules, used_through, toggles, imports_on_mac, installs_on_mac,
                      distributions, provides, mps, mps_since, mps_note, alternative, impact, why, effort_low, effort_high,
                      source)

#undef MPSPORT_CACHED_FIELDS

struct CatalogueFields {
    static nlohmann::json to_json(const RuleCatalogue& c) {
        return {{"rules", c.m_rules}, {"packages", c.m_packages}, {"program", c.m_program}};
    }
    static RuleCatalogue from_json(const nlohmann::json& j, const fs::path& root, std::uint64_t digest) {
        RuleCatalogue c;
        j.at("rules").get_to(c.m_rules);
        j.at("packages").get_to(c.m_packages);
        j.at("program").get_to(c.m_program);
        c.m_root = root;
        c.m_digest = digest;
        c.m_from_cache = true;
        return c;
    }
};

namespace {

// Bumped whenever what the file holds changes meaning (the build identity in the key covers code).
constexpr const char* kFormat = "mpsport-rules-cache 1";

// "<format>\n<key>\n<checksum of the payload>\n<CBOR payload>"
std::string encode(const RuleCatalogue& c, const std::string& key) {
    const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(CatalogueFields::to_json(c));
    const std::string payload(cbor.begin(), cbor.end());
    return std::string(kFormat) + "\n" + key + "\n" + hex64(content_hash(payload)) + "\n" + payload;
}

// The catalogue the file keeps under `key`; nullopt when it is missing, made for other rules or
// another build, or damaged (any part that does not read back is a miss, never an error).
std::optional<RuleCatalogue> decode(const fs::path& file, const std::string& key, const fs::path& root, std::uint64_t digest) {
    std::string text;
    try {
        text = read_file(file);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    std::size_t at = 0;
    auto line = [&]() -> std::optional<std::string> {
        const std::size_t end = text.find('\n', at);
        if (end == std::string::npos) return std::nullopt;
        std::string out = text.substr(at, end - at);
        at = end + 1;
        return out;
    };
    const auto format = line();
    const auto stored_key = line();
    const auto checksum = line();
    if (!format || *format != kFormat || !stored_key || *stored_key != key || !checksum) return std::nullopt;
    const std::string_view payload(text.data() + at, text.size() - at);
    if (*checksum != hex64(content_hash(payload))) return std::nullopt;
    try {
        return CatalogueFields::from_json(nlohmann::json::from_cbor(payload), root, digest);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// Each rules folder has a file of its own (a test's copy of the rules too): the folder keeps the
// newest kMaxFiles of them.
constexpr std::size_t kMaxFiles = 8;

void prune(const fs::path& cache_dir, const fs::path& written) {
    std::vector<std::pair<fs::file_time_type, fs::path>> files;
    std::error_code ec;
    for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->path() == written || name.rfind("rules-", 0) != 0 || it->path().extension() != ".cbor") continue;
        std::error_code time_ec;
        const auto time = fs::last_write_time(it->path(), time_ec);
        if (!time_ec) files.emplace_back(time, it->path());
    }
    if (files.size() < kMaxFiles) return;
    std::sort(files.begin(), files.end());  // oldest first
    for (std::size_t i = 0; i + (kMaxFiles - 1) < files.size(); ++i) fs::remove(files[i].second, ec);
}

}  // namespace

RuleCatalogue RuleCatalogue::load_cached(const fs::path& rules_dir, const fs::path& cache_dir) {
    const std::uint64_t digest = digest_of(rules_dir);
    std::string key_input = std::string(kFormat) + "|" + build_identity() + "|" + rules_dir.generic_string() + "|" + hex64(digest);
    for (const char* schema : {"rule.schema.json", "packages.schema.json", "program.schema.json"}) {
        try {
            key_input += "|" + hex64(content_hash(read_file(rules_dir / schema)));
        } catch (const std::exception&) {
            return load(rules_dir);  // it names the schema that is missing
        }
    }
    const std::string key = hex64(fnv1a64(key_input));
    // One file per rules folder and build: a new version of the rules replaces it.
    const fs::path file = cache_dir / ("rules-" + hex64(fnv1a64(rules_dir.generic_string() + "|" + build_identity())) + ".cbor");
    if (std::optional<RuleCatalogue> cached = decode(file, key, rules_dir, digest)) {
        cached->m_cache_dir = cache_dir;
        return std::move(*cached);
    }
    RuleCatalogue loaded = load(rules_dir);
    loaded.m_cache_dir = cache_dir;
    try {
        write_file_atomically(file, encode(loaded, key));
        prune(cache_dir, file);
    } catch (const std::exception&) {
        // a read-only or full cache folder costs the next run the time, nothing else
    }
    return loaded;
}

}  // namespace mpsport
