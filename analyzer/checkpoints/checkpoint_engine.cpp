#include "analyzer/checkpoints/checkpoint_engine.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analyzer/match.hpp"

namespace mpsport::checkpoints {
namespace {

std::optional<Check> parse_check(std::string_view s) {
    if (s == "contents") return Check::contents;
    if (s == "cuda-storage") return Check::cuda_storage;
    if (s == "float64") return Check::float64;
    if (s == "unknown-globals") return Check::unknown_globals;
    return std::nullopt;
}

std::string join_bytes(const std::map<std::string, std::uint64_t>& m) {
    std::string out;
    for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + k + " " + human_bytes(v);
    return out;
}

std::map<std::string, std::string> captures_of(const Summary& s, const std::string& path) {
    std::map<std::string, std::string> c;
    c["path"] = path;
    c["format"] = std::string(to_string(s.format));
    c["tensors"] = std::to_string(s.tensors);
    c["storages"] = std::to_string(s.storages.size());
    c["dtypes"] = join_bytes(s.bytes_by_dtype());
    c["size"] = human_bytes(s.total_bytes());
    const auto locations = s.bytes_by_location();
    c["locations"] = locations.empty() ? "no device tags" : join_bytes(locations);
    std::map<std::string, std::uint64_t> cuda, wide;
    for (const auto& st : s.storages) {
        if (st.location.rfind("cuda", 0) == 0) cuda[st.location] += st.bytes;
        if (st.dtype == "float64" || st.dtype == "complex128") wide[st.dtype] += st.bytes;
    }
    c["cuda"] = join_bytes(cuda);
    c["float64"] = join_bytes(wide);
    std::string globals;
    for (const auto& g : s.unknown_globals) globals += (globals.empty() ? "" : ", ") + g;
    c["globals"] = globals;
    c["missing"] = s.missing_storages ? ", " + std::to_string(s.missing_storages) + " storages missing or cut off" : "";
    return c;
}

bool fires(Check check, const Summary& s) {
    switch (check) {
        case Check::contents: return true;
        case Check::cuda_storage:
            return std::any_of(s.storages.begin(), s.storages.end(), [](const Storage& st) { return st.location.rfind("cuda", 0) == 0; });
        case Check::float64:
            return std::any_of(s.storages.begin(), s.storages.end(),
                               [](const Storage& st) { return st.dtype == "float64" || st.dtype == "complex128"; });
        case Check::unknown_globals: return !s.unknown_globals.empty();
    }
    return false;
}

// The fingerprint's matched text: what the finding is about, never the line (a binary has none).
std::string matched_text(Check check, const std::map<std::string, std::string>& c) {
    switch (check) {
        case Check::contents: return "contents";
        case Check::cuda_storage: return "cuda " + c.at("cuda");
        case Check::float64: return "float64 " + c.at("float64");
        case Check::unknown_globals: return "globals " + c.at("globals");
    }
    return "";
}

}  // namespace

std::string human_bytes(std::uint64_t n) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    double v = static_cast<double>(n);
    int u = 0;
    while (v >= 1000 && u < 4) v /= 1000, ++u;
    char buf[32];
    if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
    else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

CheckpointEngine::CheckpointEngine(const RuleCatalogue& catalogue) {
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "checkpoint") continue;
        const auto check = parse_check(r.checkpoint_check);
        if (!check) throw RuleError(r.source.generic_string() + ": checkpoint.check must be contents|cuda-storage|float64|unknown-globals");
        m_rules.emplace_back(&r, *check);
    }
}

std::vector<Finding> CheckpointEngine::analyze(const FileEntry& file, const Limits& limits) const {
    const Summary summary = read_checkpoint(file.absolute, limits);
    const auto captures = captures_of(summary, file.path);
    std::vector<Finding> out;
    for (const auto& [rule, check] : m_rules) {
        if (!fires(check, summary)) continue;
        Finding f;
        f.rule_id = rule->id;
        f.severity = f.rule_severity = rule->severity;
        f.category = rule->category;
        f.impact = f.rule_impact = rule->impact;
        f.subject = file.path;
        f.location = {file.path, 1, 1, 1, 1, 0};
        f.snippet = captures.at("format") + ": " + captures.at("tensors") + " tensors, " + captures.at("size");
        f.matched = matched_text(check, captures);
        f.message = expand_message(rule->message, captures);
        f.fix = expand_message(rule->fix, captures);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace mpsport::checkpoints
