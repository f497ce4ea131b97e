// What a dependency manifest declares, read without installing or running anything:
// requirements*.txt / constraints, pyproject.toml (PEP 621, PEP 735, Poetry, uv, PDM),
// environment.yml (conda + its pip section), setup.cfg, and setup.py (tree-sitter, never run).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/manifests/pep508.hpp"
#include "core/source_text.hpp"
#include "core/walker.hpp"

namespace mpsport::manifests {

enum class Scope {
    required,  // installed by a plain install (project dependencies, requirements lines, non-optional groups)
    optional,  // only when asked for: an extra, an optional Poetry group, a PEP 735 dependency group
    build,     // [build-system] requires, setup_requires
};

struct Span {
    std::size_t begin = 0;  // byte range in the manifest
    std::size_t end = 0;
};

struct Dependency {
    std::string name;  // as written
    std::vector<std::string> extras;
    std::string version;  // specifier or Poetry constraint as written
    std::string url;      // direct reference, if any
    Scope scope = Scope::required;
    std::string group;        // extra / group name for optional (and named required) groups
    bool linux_only = false;  // a marker or Poetry `platform` keeps it off macOS
    Span span;
    // "cu118" for a +cu118 local version, a CUDA wheel URL or a conda CUDA build string; else empty.
    std::string cuda_build;
};

// An optional group as a whole (for "the `gpu` extra is Linux-only").
struct Group {
    std::string name;
    Scope scope = Scope::optional;
    Span span;  // the group's key
};

// --index-url / --extra-index-url / --find-links, [[tool.uv.index]], [[tool.poetry.source]], ...
struct PackageIndex {
    std::string url;
    std::string name;         // the index's name where the format gives one
    bool linux_only = false;  // every dependency routed to it carries a marker that excludes macOS
    // Searched beside PyPI, not instead of it (pip's --extra-index-url, --find-links): pip on macOS
    // still finds the macOS wheel there, the CUDA index holding only Linux and Windows ones.
    bool beside_pypi = false;
    Span span;
};

struct Include {
    std::string target;  // path as written, relative to the including file
    bool constraint = false;
    Span span;
};

struct ManifestFacts {
    std::vector<Dependency> dependencies;
    std::vector<Group> groups;
    std::vector<PackageIndex> indexes;
    std::vector<Span> nvidia_channels;  // conda `channels:` entries that are NVIDIA's
    std::vector<std::string> channels;
    std::vector<Include> includes;
};

// A dependency from a parsed PEP 508 requirement (marker and CUDA build tag read off it).
Dependency make_dependency(const Requirement& r, Scope scope, std::string group, Span span);

// Throws std::runtime_error naming the line when the manifest cannot be parsed.
ManifestFacts read_manifest(FileKind kind, const SourceText& source);

ManifestFacts read_requirements(const SourceText& source);
ManifestFacts read_pyproject(const SourceText& source);
ManifestFacts read_conda_env(const SourceText& source);
ManifestFacts read_setup_cfg(const SourceText& source);
ManifestFacts read_setup_py(const SourceText& source);

}  // namespace mpsport::manifests
