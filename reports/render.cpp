#include "reports/render.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/finding_json.hpp"

namespace mpsport {
namespace {

using nlohmann::json;

std::string location_text(const Location& l) {
    if (l.cell > 0) return fmt::format("{}[cell {}]:{}:{}", l.path, l.cell, l.line, l.col);
    return fmt::format("{}:{}:{}", l.path, l.line, l.col);
}

std::map<std::string, int> count_by_severity(const std::vector<Finding>& findings) {
    std::map<std::string, int> c = {{"blocker", 0}, {"major", 0}, {"minor", 0}, {"info", 0}};
    for (const auto& f : findings) ++c[std::string(to_string(f.severity))];
    return c;
}

json assessment_json(const Assessment& a) {
    json items = json::array();
    for (const auto& i : a.items)
        items.push_back({{"number", i.number},
                         {"title", i.title},
                         {"status", to_string(i.status)},
                         {"predicted", i.predicted},
                         {"detail", i.detail},
                         {"evidence", i.evidence}});
    json by_cat = json::object();
    for (const auto& [c, r] : a.effort.by_category) by_cat[c] = {{"low", r.low}, {"high", r.high}};
    json by_rule = json::object();
    for (const auto& [c, r] : a.effort.by_rule) by_rule[c] = {{"low", r.low}, {"high", r.high}};
    return {{"verdict", to_string(a.verdict)},
            {"verdict_reason", a.verdict_reason},
            {"static_only", a.static_only},
            {"checklist", items},
            {"effort_hours", {{"low", a.effort.total.low}, {"high", a.effort.total.high}, {"by_category", by_cat}, {"by_rule", by_rule}}}};
}

json evidence_json(const Evidence& ev) {
    json roles = json::object();
    for (const auto& role : ev.roles) roles[role.role] = {{"devices", role.devices}, {"dtypes", role.dtypes}};
    json ops = json::array();
    for (const auto& op : ev.ops)
        ops.push_back({{"op", op.op}, {"phase", op.phase}, {"devices", op.devices}, {"dtypes", op.dtypes}, {"count", op.count},
                       {"first_frame", op.first_frame}, {"mps", op.mps_status}, {"mps_note", op.mps_note}});
    json j = {{"trace", ev.trace_path},     {"complete", ev.complete},         {"reason", ev.incomplete_reason},
              {"device", ev.device},        {"torch", ev.torch_version},      {"platform", ev.platform},
              {"mps_predicted", ev.predicted}, {"target_torch", ev.target_torch}, {"optimizer_steps", ev.optimizer_steps},
              {"roles", roles},             {"ops_needing_attention", ops},   {"step_seconds", ev.step_seconds}};
    if (ev.checkpoint_ok) j["checkpoint"] = {{"ok", *ev.checkpoint_ok}, {"detail", ev.checkpoint_detail}};
    if (ev.numerics_ok) j["numerics"] = {{"ok", *ev.numerics_ok}, {"detail", ev.numerics_detail}};
    return j;
}

std::string render_json(const Report& r) {
    json findings = json::array();
    for (const auto& f : r.scan.findings) findings.push_back(finding_to_json(f));
    json skipped = json::array();
    for (const auto& s : r.scan.skipped) skipped.push_back({{"path", s.path}, {"reason", s.reason}});
    json j = {{"schema", kReportSchema},
              {"tool", {{"name", "mpsport"}, {"version", r.tool_version}}},
              {"root", r.scan.root},
              {"files_scanned", r.scan.files_scanned},
              {"files_cached", r.scan.files_cached},
              {"lines_scanned", r.scan.lines_scanned},
              {"skipped", skipped},
              {"summary", count_by_severity(r.scan.findings)},
              {"findings", findings}};
    if (!r.scan.warnings.empty()) j["warnings"] = r.scan.warnings;
    if (r.assessment) j["assessment"] = assessment_json(*r.assessment);
    if (r.evidence) j["runtime"] = evidence_json(*r.evidence);
    return j.dump(2) + "\n";
}

std::string sarif_level(Severity s) {
    switch (s) {
        case Severity::blocker:
        case Severity::major: return "error";
        case Severity::minor: return "warning";
        case Severity::info: return "note";
    }
    return "note";
}

std::string render_sarif(const Report& r) {
    json rules = json::array();
    std::map<std::string, int> rule_index;
    for (const auto& rule : r.catalogue.rules()) {
        rule_index[rule.id] = static_cast<int>(rules.size());
        rules.push_back({{"id", rule.id},
                         {"name", rule.id},
                         {"shortDescription", {{"text", rule.docs.what}}},
                         {"fullDescription", {{"text", rule.docs.why}}},
                         {"help", {{"text", rule.fix}}},
                         {"defaultConfiguration", {{"level", sarif_level(rule.severity)}}},
                         {"properties", {{"category", rule.category}, {"verdict_impact", to_string(rule.impact)}}}});
    }
    json results = json::array();
    for (const auto& f : r.scan.findings) {
        json region = {{"startLine", f.location.line}, {"startColumn", f.location.col},
                       {"endLine", f.location.end_line}, {"endColumn", f.location.end_col}};
        json result = {{"ruleId", f.rule_id},
                       {"level", sarif_level(f.severity)},
                       {"message", {{"text", f.message + (f.note.empty() ? "" : " (" + f.note + ")")}}},
                       {"locations", json::array({{{"physicalLocation",
                                                    {{"artifactLocation", {{"uri", f.location.path}, {"uriBaseId", "SRCROOT"}}},
                                                     {"region", region}}}}})},
                       {"partialFingerprints", {{"mpsport/v1", f.fingerprint}}}};
        if (auto it = rule_index.find(f.rule_id); it != rule_index.end()) result["ruleIndex"] = it->second;
        if (f.location.cell > 0) result["properties"] = {{"notebook_cell", f.location.cell}};
        results.push_back(std::move(result));
    }
    json run = {{"tool", {{"driver", {{"name", "mpsport"}, {"version", r.tool_version}, {"rules", rules}}}}}, {"results", results}};
    if (r.assessment) run["properties"] = assessment_json(*r.assessment);
    json j = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
    return j.dump(2) + "\n";
}

struct Style {
    bool color;
    std::string operator()(std::string_view code, std::string_view text) const {
        return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
    }
};

std::string_view severity_color(Severity s) {
    switch (s) {
        case Severity::blocker: return "1;31";
        case Severity::major: return "31";
        case Severity::minor: return "33";
        case Severity::info: return "36";
    }
    return "0";
}

std::string_view status_mark(ItemStatus s) {
    switch (s) {
        case ItemStatus::pass: return "PASS";
        case ItemStatus::warn: return "WARN";
        case ItemStatus::fail: return "FAIL";
        case ItemStatus::not_run: return "----";
    }
    return "----";
}

std::string render_text(const Report& r, bool color) {
    const Style style{color};
    std::string out;
    std::string current;
    for (const auto& f : r.scan.findings) {
        if (f.location.path != current) {
            current = f.location.path;
            out += (out.empty() ? "" : "\n") + style("1", current) + "\n";
        }
        out += fmt::format("  {} {} {} {}\n", location_text(f.location), style(severity_color(f.severity), std::string(to_string(f.severity))),
                           style("2", f.rule_id), f.message);
        out += fmt::format("      | {}\n", f.snippet);
        if (!f.note.empty()) out += fmt::format("      note: {}\n", f.note);
        out += fmt::format("      fix: {}\n", f.fix);
    }
    if (!r.scan.skipped.empty()) {
        out += "\n" + style("1", "Skipped") + "\n";
        for (const auto& s : r.scan.skipped) out += fmt::format("  {}: {}\n", s.path, s.reason);
    }
    for (const auto& w : r.scan.warnings) out += "warning: " + w + "\n";
    const auto c = count_by_severity(r.scan.findings);
    out += fmt::format("\n{} findings ({} blocker, {} major, {} minor, {} info) in {} files ({} lines, {} from cache, {} skipped) in {:.2f}s\n",
                       r.scan.findings.size(), c.at("blocker"), c.at("major"), c.at("minor"), c.at("info"), r.scan.files_scanned,
                       r.scan.lines_scanned, r.scan.files_cached, r.scan.skipped.size(), r.scan.seconds);
    if (r.assessment) {
        const Assessment& a = *r.assessment;
        out += "\n" + style("1", "MPS release checklist") + (a.static_only ? " (static-only: runtime items not run)" : "") + "\n";
        for (const auto& i : a.items)
            out += fmt::format("  [{}] {}. {}{}: {}\n", status_mark(i.status), i.number, i.title, i.predicted ? " (predicted)" : "", i.detail);
        out += fmt::format("\nVerdict: {} - {}\n", style("1", std::string(to_string(a.verdict))), a.verdict_reason);
        out += fmt::format("Effort: {:.1f}-{:.1f} hours", a.effort.total.low, a.effort.total.high);
        std::string parts;
        for (const auto& [cat, e] : a.effort.by_category) parts += fmt::format("{}{} {:.1f}-{:.1f}", parts.empty() ? "" : ", ", cat, e.low, e.high);
        out += parts.empty() ? "\n" : " (" + parts + ")\n";
    }
    return out;
}

std::string md_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

std::string render_md(const Report& r) {
    std::string out = fmt::format("# mpsport report: `{}`\n\n", r.scan.root);
    if (r.assessment) {
        const Assessment& a = *r.assessment;
        out += fmt::format("**Verdict: {}** - {}\n\n", to_string(a.verdict), md_escape(a.verdict_reason));
        out += fmt::format("**Effort:** {:.1f}-{:.1f} hours\n\n", a.effort.total.low, a.effort.total.high);
        out += "| # | Item | Status | Detail |\n|---|---|---|---|\n";
        for (const auto& i : a.items)
            out += fmt::format("| {} | {} | {}{} | {} |\n", i.number, md_escape(i.title), to_string(i.status), i.predicted ? " (predicted)" : "", md_escape(i.detail));
        out += "\n";
    }
    if (r.evidence && !r.evidence->ops.empty()) {
        out += fmt::format("## Ops of the audited step that need attention on MPS (PyTorch {}{})\n\n| Op | MPS | Phase | Count | Dtypes | First frame |\n|---|---|---|---|---|---|\n",
                           r.evidence->target_torch, r.evidence->predicted ? ", predicted" : "");
        for (const auto& op : r.evidence->ops)
            out += fmt::format("| `{}` | {} | {} | {} | {} | `{}` |\n", op.op, op.mps_status, op.phase, op.count, op.dtypes, op.first_frame);
        out += "\n";
    }
    const auto c = count_by_severity(r.scan.findings);
    out += fmt::format("## Findings ({}: {} blocker, {} major, {} minor, {} info)\n\n", r.scan.findings.size(), c.at("blocker"), c.at("major"),
                       c.at("minor"), c.at("info"));
    if (!r.scan.findings.empty()) {
        out += "| Location | Severity | Rule | Message | Fix |\n|---|---|---|---|---|\n";
        for (const auto& f : r.scan.findings)
            out += fmt::format("| `{}` | {} | `{}` | {} | {} |\n", location_text(f.location), to_string(f.severity), f.rule_id,
                               md_escape(f.message + (f.note.empty() ? "" : " (" + f.note + ")")), md_escape(f.fix));
    }
    if (!r.scan.skipped.empty()) {
        out += "\n## Skipped files\n\n";
        for (const auto& s : r.scan.skipped) out += fmt::format("- `{}`: {}\n", s.path, s.reason);
    }
    out += fmt::format("\n_{} files, {} lines scanned by mpsport {}._\n", r.scan.files_scanned, r.scan.lines_scanned, r.tool_version);
    return out;
}

std::string html_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string render_html(const Report& r) {
    std::string out = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mpsport report</title>\n<style>"
                      "body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem}table{border-collapse:collapse;width:100%}"
                      "td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}code{font-size:.9em}"
                      ".pass{background:#e6f4ea}.warn{background:#fff4e5}.fail{background:#fde7e9}.not-run{color:#666}"
                      ".blocker,.major{color:#b00020}.minor{color:#8a5300}.info{color:#2a5d84}</style></head><body>\n";
    out += fmt::format("<h1>mpsport report: <code>{}</code></h1>\n", html_escape(r.scan.root));
    if (r.assessment) {
        const Assessment& a = *r.assessment;
        out += fmt::format("<p><strong>Verdict: {}</strong> &mdash; {}</p>\n<p><strong>Effort:</strong> {:.1f}&ndash;{:.1f} hours</p>\n",
                           to_string(a.verdict), html_escape(a.verdict_reason), a.effort.total.low, a.effort.total.high);
        out += "<table><tr><th>#</th><th>Item</th><th>Status</th><th>Detail</th></tr>\n";
        for (const auto& i : a.items)
            out += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td></tr>\n", to_string(i.status), i.number,
                               html_escape(i.title), to_string(i.status), i.predicted ? " (predicted)" : "", html_escape(i.detail));
        out += "</table>\n";
    }
    out += fmt::format("<h2>Findings ({})</h2>\n<table><tr><th>Location</th><th>Severity</th><th>Rule</th><th>Message</th><th>Fix</th></tr>\n",
                       r.scan.findings.size());
    for (const auto& f : r.scan.findings)
        out += fmt::format("<tr><td><code>{}</code></td><td class=\"{}\">{}</td><td><code>{}</code></td><td>{}<br><code>{}</code></td><td>{}</td></tr>\n",
                           html_escape(location_text(f.location)), to_string(f.severity), to_string(f.severity), f.rule_id,
                           html_escape(f.message), html_escape(f.snippet), html_escape(f.fix));
    out += "</table>\n";
    if (!r.scan.skipped.empty()) {
        out += "<h2>Skipped files</h2><ul>\n";
        for (const auto& s : r.scan.skipped) out += fmt::format("<li><code>{}</code>: {}</li>\n", html_escape(s.path), html_escape(s.reason));
        out += "</ul>\n";
    }
    out += "</body></html>\n";
    return out;
}

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
    if (name == "text") return Format::text;
    if (name == "json") return Format::json;
    if (name == "sarif") return Format::sarif;
    if (name == "md" || name == "markdown") return Format::md;
    if (name == "html") return Format::html;
    return std::nullopt;
}

std::string render(const Report& report, Format format, bool color) {
    switch (format) {
        case Format::text: return render_text(report, color);
        case Format::json: return render_json(report);
        case Format::sarif: return render_sarif(report);
        case Format::md: return render_md(report);
        case Format::html: return render_html(report);
    }
    return {};
}

}  // namespace mpsport
