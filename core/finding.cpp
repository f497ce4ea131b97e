#include "core/finding.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/hash.hpp"

namespace mpsport {

std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::info: return "info";
        case Severity::minor: return "minor";
        case Severity::major: return "major";
        case Severity::blocker: return "blocker";
    }
    return "info";
}

std::string_view to_string(VerdictImpact v) {
    switch (v) {
        case VerdictImpact::none: return "none";
        case VerdictImpact::dual: return "dual";
        case VerdictImpact::stay: return "stay";
    }
    return "none";
}

std::optional<Severity> parse_severity(std::string_view s) {
    if (s == "info") return Severity::info;
    if (s == "minor") return Severity::minor;
    if (s == "major") return Severity::major;
    if (s == "blocker") return Severity::blocker;
    return std::nullopt;
}

std::optional<VerdictImpact> parse_verdict_impact(std::string_view s) {
    if (s == "none") return VerdictImpact::none;
    if (s == "dual") return VerdictImpact::dual;
    if (s == "stay") return VerdictImpact::stay;
    return std::nullopt;
}

std::string_view to_string(Reach r) {
    switch (r) {
        case Reach::core: return "core";
        case Reach::optional: return "optional";
        case Reach::tooling: return "tooling";
        case Reach::unreached: return "unreached";
    }
    return "core";
}

std::optional<Reach> parse_reach(std::string_view s) {
    for (Reach r : {Reach::core, Reach::optional, Reach::tooling, Reach::unreached})
        if (to_string(r) == s) return r;
    return std::nullopt;
}

std::string_view to_string(GuardKind g) {
    switch (g) {
        case GuardKind::none: return "none";
        case GuardKind::import_fallback: return "import-fallback";
        case GuardKind::device_check: return "device-check";
        case GuardKind::distributed_gate: return "distributed-gate";
        case GuardKind::platform: return "platform";
        case GuardKind::test_skip: return "test-skip";
        case GuardKind::availability_select: return "availability-select";
        case GuardKind::no_grad: return "no-grad";
        case GuardKind::grad_unknown: return "grad-unknown";
        case GuardKind::non_cpu_branch: return "non-cpu-branch";
        case GuardKind::default_unused: return "default-unused";
        case GuardKind::alternative_branch: return "alternative-branch";
        case GuardKind::never_called: return "never-called";
        case GuardKind::off_by_default: return "off-by-default";
        case GuardKind::default_arm: return "default-arm";
    }
    return "none";
}

std::pair<std::string_view, std::optional<std::string_view>> split_option_note(std::string_view note) {
    const std::size_t at = note.find(kInsideOption);
    if (at == std::string_view::npos) return {note, std::nullopt};
    return {note.substr(0, at), note.substr(at + kInsideOption.size())};
}

std::pair<GuardKind, std::string> guard_once_turned_on(std::string_view off_by_default_note) {
    if (const auto inside = split_option_note(off_by_default_note).second) return {GuardKind::import_fallback, std::string(*inside)};
    return {GuardKind::none, std::string()};
}

int guard_strength(GuardKind g) {
    if (g == GuardKind::none) return 3;
    if (g == GuardKind::import_fallback || g == GuardKind::non_cpu_branch || g == GuardKind::alternative_branch || g == GuardKind::off_by_default ||
        g == GuardKind::default_arm)
        return 2;
    return 1;
}

const std::vector<GuardKind>& guard_kinds() {
    // The enumerators after none, in order, up to the first value to_string does not name: complete
    // by construction, since to_string's switch names every enumerator (-Wswitch).
    static const std::vector<GuardKind> kinds = [] {
        std::vector<GuardKind> out;
        for (int g = static_cast<int>(GuardKind::none) + 1; to_string(static_cast<GuardKind>(g)) != to_string(GuardKind::none); ++g)
            out.push_back(static_cast<GuardKind>(g));
        return out;
    }();
    return kinds;
}

std::optional<GuardKind> parse_guard_kind(std::string_view s) {
    if (s == to_string(GuardKind::none)) return GuardKind::none;
    for (GuardKind g : guard_kinds())
        if (to_string(g) == s) return g;
    return std::nullopt;
}

static std::string normalise_whitespace(std::string_view text) {
    std::string out;
    bool in_space = false;
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            in_space = !out.empty();
            continue;
        }
        if (in_space) out.push_back(' ');
        in_space = false;
        out.push_back(c);
    }
    return out;
}

void assign_fingerprints(std::vector<Finding>& findings) {
    std::map<std::string, int> seen;
    for (auto& f : findings) {
        std::string key = f.rule_id + '\0' + f.location.path + '\0' + normalise_whitespace(f.matched);
        int ordinal = seen[key]++;
        key += '\0' + std::to_string(ordinal);
        f.fingerprint = hex64(fnv1a64(key));
    }
}

void sort_findings(std::vector<Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.location.path, a.location.line, a.location.col, a.rule_id) <
               std::tie(b.location.path, b.location.line, b.location.col, b.rule_id);
    });
}

void merge_same_line(std::vector<Finding>& findings) {
    auto same = [](const Finding& a, const Finding& b) {
        return std::tie(a.rule_id, a.subject, a.ops, a.native_op, a.source) == std::tie(b.rule_id, b.subject, b.ops, b.native_op, b.source);
    };
    std::vector<Finding> out;
    out.reserve(findings.size());
    for (std::size_t i = 0; i < findings.size();) {
        std::size_t end = i + 1;  // [i, end): one line of one file
        while (end < findings.size() && findings[end].location.path == findings[i].location.path && findings[end].location.line == findings[i].location.line)
            ++end;
        std::vector<char> taken(end - i, 0);
        for (std::size_t a = i; a < end; ++a) {
            if (taken[a - i]) continue;
            std::vector<std::size_t> group{a};
            for (std::size_t b = a + 1; b < end; ++b)
                if (!taken[b - i] && same(findings[a], findings[b])) group.push_back(b), taken[b - i] = 1;
            // the heaviest leads (severity, then impact); among equals the first on the line
            std::size_t lead = a;
            for (std::size_t g : group)
                if (std::tie(findings[g].severity, findings[g].impact) > std::tie(findings[lead].severity, findings[lead].impact)) lead = g;
            Finding merged = std::move(findings[lead]);
            for (std::size_t g : group) {
                if (g == lead) continue;
                Finding& other = findings[g];
                RelatedLocation rel;
                rel.location = other.location;
                const std::string text = normalise_whitespace(other.matched);  // one line, as a label is printed
                rel.label = "also on this line: " + (text.size() > 80 ? text.substr(0, 77) + "..." : text);
                merged.related.push_back(std::move(rel));
                // the uses both list (one constant's) once
                for (auto& r : other.related)
                    if (std::none_of(merged.related.begin(), merged.related.end(), [&](const RelatedLocation& m) {
                            return m.location.path == r.location.path && m.location.line == r.location.line && m.label == r.label;
                        }))
                        merged.related.push_back(std::move(r));
                merged.lines = std::max(merged.lines, other.lines);
            }
            out.push_back(std::move(merged));
        }
        i = end;
    }
    findings = std::move(out);
    sort_findings(findings);
}

}  // namespace mpsport
