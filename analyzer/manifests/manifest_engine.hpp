// Rules over dependency manifests: what they declare (packages, groups, indexes, channels).
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/manifests/dependencies.hpp"
#include "analyzer/match.hpp"
#include "core/rule_catalogue.hpp"
#include "core/walker.hpp"

namespace mpsport::manifests {

// What a manifest rule checks (its `manifest.check`).
enum class Check {
    cuda_only_packages,  // a dependency listed in rules/packages/
    cuda_only_groups,    // an optional group / extra made only of such packages
    cuda_builds,         // +cuXXX local versions, CUDA builds, CUDA wheel indexes
    nvidia_channels,     // conda's nvidia channel
    pins_before_mps,     // a framework pinned below its first release with MPS (params.first_mps_release)
    machine_export,      // `conda env export` of one machine (params: per platform, its platform-only packages)
};

// The kind a manifest rule reads a file as: setup.py is Python to the Python engine and a
// dependency manifest here.
FileKind manifest_kind(std::string_view path, FileKind walked_kind);

class ManifestEngine {
public:
    explicit ManifestEngine(const RuleCatalogue& catalogue);
    // Throws std::runtime_error when a manifest is malformed (the scan lists it as skipped).
    std::vector<Match> analyze(FileKind kind, const SourceText& source) const;
    // Whether any manifest rule reads files of this kind.
    bool reads(FileKind kind) const;

private:
    struct CheckedRule {
        const Rule* rule;
        Check check;
    };
    void package_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const;
    void group_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const;
    void build_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const;
    void pin_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const;
    std::optional<std::pair<const Dependency*, std::string>> machine_export(const Rule& rule, const ManifestFacts& facts) const;
    // Optional groups whose every member is a listed package: reported once, as a group.
    std::vector<const Group*> cuda_only_groups(const ManifestFacts& facts) const;

    const RuleCatalogue& m_catalogue;
    std::vector<CheckedRule> m_rules;
};

}  // namespace mpsport::manifests
