#include "analyzer/manifests/manifest_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/paths.hpp"

namespace mpsport::manifests {
namespace {

std::optional<Check> parse_check(std::string_view s) {
    if (s == "cuda-only-packages") return Check::cuda_only_packages;
    if (s == "cuda-only-groups") return Check::cuda_only_groups;
    if (s == "cuda-builds") return Check::cuda_builds;
    if (s == "nvidia-channels") return Check::nvidia_channels;
    if (s == "pins-before-mps") return Check::pins_before_mps;
    if (s == "machine-export") return Check::machine_export;
    return std::nullopt;
}

bool reads_kind(const Rule& r, FileKind kind) {
    const std::string_view name = to_string(kind);
    return std::find(r.file_kinds.begin(), r.file_kinds.end(), name) != r.file_kinds.end();
}

Match match_at(const Rule& rule, Span span, std::string finding) {
    Match m;
    m.rule = &rule;
    m.begin = span.begin;
    m.end = std::max(span.end, span.begin + 1);
    m.captures["finding"] = std::move(finding);
    return m;
}

void lower(Match& m, Severity severity, VerdictImpact impact, std::string note) {
    m.severity = std::min(m.severity.value_or(m.rule->severity), severity);
    m.impact = std::min(m.impact.value_or(m.rule->impact), impact);
    m.note = std::move(note);
}

const char* group_word(const Group& g) { return g.scope == Scope::optional ? "optional group / extra" : "group"; }

bool is_cuda_index(std::string_view url) {
    return !cuda_build_tag(url).empty() || url.find("pypi.nvidia.com") != std::string_view::npos ||
           url.find("pypi.ngc.nvidia.com") != std::string_view::npos;
}

}  // namespace

FileKind manifest_kind(std::string_view path, FileKind walked_kind) {
    const std::size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (walked_kind == FileKind::python && name == "setup.py") return FileKind::setup_py;
    return walked_kind;
}

ManifestEngine::ManifestEngine(const RuleCatalogue& catalogue) : m_catalogue(catalogue) {
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "manifest") continue;
        for (const auto& kind : r.file_kinds)
            if (!parse_file_kind(kind))
                throw RuleError(r.source.generic_string() + ": manifest.files: unknown file kind '" + kind + "'");
        const auto check = parse_check(r.manifest_check);
        if (!check)
            throw RuleError(r.source.generic_string() +
                            ": manifest.check must be cuda-only-packages|cuda-only-groups|cuda-builds|nvidia-channels|pins-before-mps|machine-export");
        m_rules.push_back({&r, *check});
    }
}

bool ManifestEngine::reads(FileKind kind) const {
    return std::any_of(m_rules.begin(), m_rules.end(), [&](const CheckedRule& c) { return reads_kind(*c.rule, kind); });
}

std::vector<const Group*> ManifestEngine::cuda_only_groups(const ManifestFacts& facts) const {
    std::vector<const Group*> out;
    for (const auto& g : facts.groups) {
        if (g.scope != Scope::optional) continue;
        int members = 0;
        bool all_cuda = true;
        for (const auto& d : facts.dependencies) {
            if (d.group != g.name || d.scope != Scope::optional) continue;
            ++members;
            all_cuda = all_cuda && m_catalogue.find_distribution(d.name, d.extras) != nullptr;
        }
        if (members > 0 && all_cuda) out.push_back(&g);
    }
    return out;
}

void ManifestEngine::package_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const {
    const auto groups = cuda_only_groups(facts);
    for (const auto& d : facts.dependencies) {
        const PackageInfo* pkg = m_catalogue.find_distribution(d.name, d.extras);
        if (!pkg) continue;
        const bool in_cuda_group = d.scope == Scope::optional &&
                                   std::any_of(groups.begin(), groups.end(), [&](const Group* g) { return g->name == d.group; });
        if (in_cuda_group) continue;  // one finding for the whole group (cuda-only-optional-group)
        Match m = match_at(rule, d.span, d.name);
        describe_package(m, *pkg);
        m.captures["package"] = d.name;
        if (d.linux_only) {
            lower(m, Severity::info, VerdictImpact::none, "its environment marker keeps it off macOS: harmless on a Mac");
        } else if (d.scope == Scope::optional) {
            // The imports of the package carry the verdict, weighed by where they sit in the program.
            lower(m, Severity::minor, VerdictImpact::none,
                  "only in the optional `" + (d.group.empty() ? std::string("extra") : d.group) +
                      "` group: a Mac install can leave it out, and its imports decide whether the code needs it");
        } else if (pkg->installs_on_mac) {
            // pynvml's pure-Python wheel, faster-whisper over CTranslate2's CPU wheels: what the code
            // does with it is weighed at its imports and calls
            lower(m, Severity::info, VerdictImpact::none, "it installs on macOS: the declaration needs no edit, its calls are weighed where they are");
        } else if (pkg->impact == VerdictImpact::none) {
            lower(m, Severity::minor, VerdictImpact::none, "nothing to port: a Mac install leaves it out or takes the portable build");
        }
        if (pkg->mps != MpsStatus::none && !pkg->mps_since.empty() && allows_only_below(d.version, pkg->mps_since))
            m.note += std::string(m.note.empty() ? "" : "; ") + "pinned below " + pkg->mps_since + ", the first release with " +
                      std::string(to_string(pkg->mps)) + " MPS support: raise the pin on the Mac";
        out.push_back(std::move(m));
    }
}

void ManifestEngine::group_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const {
    for (const Group* g : cuda_only_groups(facts)) {
        std::string names;
        VerdictImpact impact = VerdictImpact::none;
        for (const auto& d : facts.dependencies) {
            if (d.group != g->name || d.scope != Scope::optional) continue;
            names += (names.empty() ? "" : ", ") + d.name;
            impact = std::max(impact, m_catalogue.find_distribution(d.name, d.extras)->impact);
        }
        Match m = match_at(rule, g->span, g->name);
        m.captures["group"] = g->name;
        m.captures["kind"] = group_word(*g);
        m.captures["packages"] = names;
        m.impact = std::min({impact, VerdictImpact::dual, rule.impact});
        out.push_back(std::move(m));
    }
}

void ManifestEngine::build_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const {
    for (const auto& d : facts.dependencies) {
        if (d.cuda_build.empty()) continue;
        Match m = match_at(rule, d.span, d.name + " (" + d.cuda_build + " build)");
        if (d.linux_only) lower(m, Severity::info, VerdictImpact::none, "its environment marker keeps it off macOS");
        out.push_back(std::move(m));
    }
    for (const auto& index : facts.indexes) {
        if (!is_cuda_index(index.url)) continue;
        Match m = match_at(rule, index.span, index.url);
        if (index.linux_only) lower(m, Severity::info, VerdictImpact::none, "only Linux-marked dependencies use this index");
        else if (index.beside_pypi)
            lower(m, Severity::info, VerdictImpact::none,
                  "an index beside PyPI: pip on macOS takes the macOS wheel from PyPI (uv, which tries extra indexes first, needs "
                  "--index-strategy unsafe-best-match)");
        out.push_back(std::move(m));
    }
}

// `torch==1.4.0`, `pytorch=1.7.0` (conda: the 1.7.0 series), `pytorch-lightning<1.7`: a framework
// pinned to releases that all predate its MPS support (params.first_mps_release: "NAME VERSION").
void ManifestEngine::pin_matches(const Rule& rule, const ManifestFacts& facts, std::vector<Match>& out) const {
    const auto firsts = rule.params.find("first_mps_release");
    if (firsts == rule.params.end()) return;
    for (const auto& d : facts.dependencies) {
        for (const std::string& entry : firsts->second) {
            const std::size_t space = entry.find(' ');
            if (space == std::string::npos || normalise_name(entry.substr(0, space)) != normalise_name(d.name)) continue;
            const std::string first = entry.substr(space + 1);
            // conda's `=1.7.0` (the 1.7.0 series), with or without a build string after a second '='
            std::string written = d.version;
            const bool conda_series = written.size() > 1 && written[0] == '=' && written[1] != '=';
            if (conda_series) written.resize(std::min(written.size(), written.find('=', 1)));
            if (!allows_only_below(conda_series ? "=" + written : written, first)) continue;
            Match m = match_at(rule, d.span, d.name + written);
            m.captures["first"] = entry;
            if (d.linux_only) lower(m, Severity::info, VerdictImpact::none, "its environment marker keeps it off macOS");
            out.push_back(std::move(m));
            break;
        }
    }
}

// The first dependency that exists for one platform only (params: platform -> package names): the
// manifest is `conda env export` of a machine of that platform.
std::optional<std::pair<const Dependency*, std::string>> ManifestEngine::machine_export(const Rule& rule, const ManifestFacts& facts) const {
    for (const auto& d : facts.dependencies)
        for (const auto& [platform, names] : rule.params)
            if (std::find(names.begin(), names.end(), d.name) != names.end()) return std::make_pair(&d, platform);
    return std::nullopt;
}

std::vector<Match> ManifestEngine::analyze(FileKind kind, const SourceText& source) const {
    std::vector<Match> out;
    std::optional<ManifestFacts> facts;  // parsed once, for the first rule that needs it
    const Rule* exported = nullptr;      // the machine-export rule, where this file is an export
    for (const auto& c : m_rules) {
        if (!reads_kind(*c.rule, kind)) continue;
        if (!facts) facts = read_manifest(kind, source);
        switch (c.check) {
            case Check::machine_export:
                if (const auto at = machine_export(*c.rule, *facts)) {
                    Match m = match_at(*c.rule, at->first->span, at->first->name);
                    const std::string platform = at->second == "linux" ? "Linux" : at->second == "windows" ? "Windows" : at->second;
                    m.captures["platform"] = platform;
                    out.push_back(std::move(m));
                    exported = c.rule;
                }
                break;
            case Check::cuda_only_packages: package_matches(*c.rule, *facts, out); break;
            case Check::cuda_only_groups: group_matches(*c.rule, *facts, out); break;
            case Check::cuda_builds: build_matches(*c.rule, *facts, out); break;
            case Check::pins_before_mps: pin_matches(*c.rule, *facts, out); break;
            case Check::nvidia_channels: {
                // The channel is only a place to look: harmless where no dependency of the
                // environment comes from it (EDM's `pytorch` + `nvidia` channels, no CUDA package).
                const auto it = c.rule->params.find("packages");
                const bool pulls = it == c.rule->params.end() || std::any_of(facts->dependencies.begin(), facts->dependencies.end(), [&](const Dependency& d) {
                    return matches_any_glob(it->second, d.name);
                });
                for (const Span& s : facts->nvidia_channels) {
                    out.push_back(match_at(*c.rule, s, "nvidia"));
                    if (!pulls) lower(out.back(), Severity::info, VerdictImpact::none, "no dependency of this environment is one of NVIDIA's packages: the solver finds nothing there for a Mac, and nothing else");
                }
                break;
            }
        }
    }
    // What an export pins is what that machine's PyTorch pulled in, not the project's choice: the
    // export itself is the one thing to act on.
    if (exported)
        for (auto& m : out)
            if (m.rule != exported)
                lower(m, Severity::info, VerdictImpact::none,
                      "pinned by an export of one machine's environment (" + exported->id + " in this file): a Mac builds its own environment, not this one");
    return out;
}

}  // namespace mpsport::manifests
