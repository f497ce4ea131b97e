// PEP 508 requirement strings ("torch[cuda]==2.1.0+cu118 ; sys_platform == 'linux'") and the one
// question mpsport asks of an environment marker: does it already keep the package off a Mac?
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport::manifests {

struct Requirement {
    std::string name;
    std::vector<std::string> extras;
    std::string version;  // the specifier as written ("==2.1.0+cu118", ">=2,<3"), empty if none
    std::string url;      // after " @ ", for direct references
    std::string marker;   // after ';', trimmed
};

// Parses one requirement. Returns nullopt for an empty string; throws std::runtime_error naming the
// problem for text pip would reject too (an unbalanced '[', no name).
std::optional<Requirement> parse_requirement(std::string_view text);

// True when the marker is false on every macOS machine: sys_platform == "linux",
// platform_system != "Darwin", platform_machine == "x86_64", ... joined by `and`; with `or`, every
// alternative must exclude macOS. Markers mpsport cannot decide count as "may install on a Mac".
bool marker_excludes_macos(std::string_view marker);

// The `+cu118` / `%2Bcu121` CUDA local version (or a /whl/cuXXX index path) in a version or URL;
// empty when there is none. `+cpu` and `/whl/cpu` are not CUDA.
std::string cuda_build_tag(std::string_view version_or_url);

// True when every version the specifier allows is older than `version` ("<0.43", "==0.42.0",
// "<=0.45" against "0.46.0"). Unparseable or open-ended specifiers return false.
bool allows_only_below(std::string_view specifier, std::string_view version);

// PEP 503 normalisation: lower case, runs of '-', '_', '.' become one '-'.
std::string normalise_name(std::string_view name);

}  // namespace mpsport::manifests
