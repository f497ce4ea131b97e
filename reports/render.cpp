#include "reports/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>
#include <set>

#include "core/finding_json.hpp"
#include "core/parallel.hpp"
#include "reports/runtime_sections.hpp"

namespace mpsport {
namespace {

using nlohmann::json;

// The findings of a report a person reads (Markdown, HTML), heaviest first: by severity, then by
// verdict impact, then by reach (core before optional, tooling and unreached), then by place. What
// decides the verdict opens the table; JSON, SARIF and text keep the scan's order, by file.
std::vector<const Finding*> by_weight(const std::vector<Finding>& findings) {
    std::vector<const Finding*> out;
    out.reserve(findings.size());
    for (const auto& f : findings) out.push_back(&f);
    std::stable_sort(out.begin(), out.end(), [](const Finding* a, const Finding* b) {
        if (a->severity != b->severity) return a->severity > b->severity;
        if (a->impact != b->impact) return a->impact > b->impact;
        return a->reach < b->reach;
    });
    return out;
}

std::string location_text(const Location& l) {
    if (l.cell > 0) return fmt::format("{}[cell {}]:{}:{}", l.path, l.cell, l.line, l.col);
    return fmt::format("{}:{}:{}", l.path, l.line, l.col);
}

std::string chain_text(const std::vector<std::string>& chain) {
    std::string out;
    for (std::size_t i = 0; i < chain.size(); ++i) out += (i ? " -> " : "") + chain[i];
    return out;
}

// "core (train.py:3 -> model.py:12)", "tooling": where a finding sits in the program model.
std::string reach_text(const Finding& f) {
    std::string out(to_string(f.reach));
    if (!f.chain.empty()) out += " (" + chain_text(f.chain) + ")";
    return out;
}

std::string related_text(const RelatedLocation& r) {
    return fmt::format("{}:{} ({})", r.location.path, r.location.line, r.label);
}

json program_json(const ProgramSummary& p) {
    json entries = json::array();
    for (const auto& e : p.entry_points) entries.push_back({{"path", e.path}, {"why", e.why}, {"tooling", e.tooling}});
    json j = {{"entry_points", entries},
              {"own_packages", p.own_packages},
              {"python_files", {{"core", p.files[0]}, {"optional", p.files[1]}, {"tooling", p.files[2]}, {"unreached", p.files[3]}}},
              {"complete", p.complete}};
    if (!p.complete) j["incomplete_reason"] = p.incomplete_reason;
    return j;
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
            {"confidence", to_string(a.confidence)},
            {"confidence_causes", a.confidence_causes},
            {"static_only", a.static_only},
            {"checklist", items},
            {"effort_hours",
             {{"low", a.effort.total.low},
              {"high", a.effort.total.high},
              {"tooling", {{"low", a.effort.tooling.low}, {"high", a.effort.tooling.high}}},
              {"by_category", by_cat},
              {"by_rule", by_rule}}}};
}

// The runtime sections (reports/runtime_sections.cpp) as data.
void add_runtime_json(const Evidence& ev, json& j) {
    if (!ev.remap_target.empty()) {
        json redirects = json::array(), blocked = json::array();
        for (const auto& r : ev.redirects)
            redirects.push_back({{"api", r.api}, {"to", r.to}, {"count", r.count}, {"first_frame", r.first_frame}, {"finding", r.finding}});
        for (const auto& b : ev.blocked) blocked.push_back({{"kind", b.kind}, {"api", b.api}, {"exception", b.exception}, {"frame", b.frame}});
        j["remap"] = {{"target", ev.remap_target}, {"redirects", redirects}, {"blocked", blocked}};
    }
    if (ev.watermark)
        j["memory_watermark"] = {{"series", ev.watermark->series}, {"bytes", ev.watermark->bytes}, {"rise", ev.watermark->rise},
                                 {"threshold", ev.watermark->threshold}, {"suspected_leak", ev.watermark->leak}};
    if (ev.time_against_cpu) {
        const auto& t = *ev.time_against_cpu;
        j["time_against_cpu"] = {{"accelerator_iteration_s", t.accelerator_iteration_s}, {"accelerator_step_s", t.accelerator_step_s},
                                 {"data_s", t.data_s}, {"cpu_iteration_s", t.cpu_iteration_s}, {"faster", t.faster}, {"bottleneck", t.bottleneck}};
    }
    if (ev.distributed) {
        json collectives = json::object();
        for (const auto& c : ev.distributed->collectives) collectives[c.op] = c.count;
        j["distributed"] = {{"world_size", ev.distributed->world_size}, {"backend", ev.distributed->backend},
                            {"ranks_traced", ev.distributed->ranks_traced}, {"collectives", collectives}};
        if (!ev.distributed->uncounted_comm_hooks.empty()) j["distributed"]["uncounted_comm_hooks"] = ev.distributed->uncounted_comm_hooks;
    }
    if (!ev.sweep.empty()) {
        json sweep = json::array();
        for (const auto& p : ev.sweep)
            sweep.push_back({{"batch", p.batch}, {"complete", p.complete}, {"step_s", p.step_s}, {"throughput", p.throughput},
                             {"rss_peak_bytes", p.rss_peak_bytes}, {"accelerator_bytes", p.accelerator_bytes}});
        j["sweep"] = sweep;
    }
    if (!ev.record.empty()) {
        json record = json::object();
        for (const auto& [k, v] : ev.record) record[k] = v;
        j["record"] = record;
    }
}

json evidence_json(const Evidence& ev) {
    json roles = json::object();
    for (const auto& role : ev.roles) roles[role.role] = {{"devices", role.devices}, {"dtypes", role.dtypes}};
    json ops = json::array();
    for (const auto& op : ev.ops) {
        ops.push_back({{"op", op.op}, {"phase", op.phase}, {"devices", op.devices}, {"dtypes", op.dtypes}, {"count", op.count},
                       {"first_frame", op.first_frame}, {"mps", op.mps_status}, {"mps_note", op.mps_note}});
        if (!op.finding.empty()) ops.back()["finding"] = op.finding;
    }
    json j = {{"trace", ev.trace_path},     {"complete", ev.complete},         {"reason", ev.incomplete_reason},
              {"device", ev.device},        {"torch", ev.torch_version},      {"platform", ev.platform},
              {"mps_predicted", ev.predicted}, {"target_torch", ev.target_torch}, {"optimizer_steps", ev.optimizer_steps},
              {"roles", roles},             {"ops_needing_attention", ops},   {"step_seconds", ev.step_seconds}};
    if (ev.checkpoint_ok) j["checkpoint"] = {{"ok", *ev.checkpoint_ok}, {"detail", ev.checkpoint_detail}};
    if (ev.numerics_ok) j["numerics"] = {{"ok", *ev.numerics_ok}, {"detail", ev.numerics_detail}};
    add_runtime_json(ev, j);
    return j;
}

json native_modules_json(const std::vector<NativeModule>& modules) {
    json out = json::array();
    for (const auto& m : modules) {
        json ops = json::array();
        for (const auto& op : m.ops) {
            json devices = json::array();
            for (NativeDevice d : op.devices) devices.push_back(to_string(d));
            ops.push_back({{"name", op.name}, {"devices", devices}, {"path", op.location.path}, {"line", op.location.line}});
        }
        out.push_back({{"source_path", m.source_path}, {"module_name", m.module_name}, {"ops", ops}});
    }
    return out;
}

// The findings array as `j.dump(2)` would write it inside the report (elements indented by 4), built
// and written on every core: it is most of a large report's bytes and of its time.
std::string findings_text(const std::vector<Finding>& findings) {
    if (findings.empty()) return "[]";
    const std::size_t n = findings.size();
    const std::size_t parts = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n / 256));
    std::vector<std::string> text(parts);
    auto write = [&](std::size_t part) {
        std::string& out = text[part];
        for (std::size_t i = part * n / parts; i < (part + 1) * n / parts; ++i) {
            const std::string one = finding_to_json(findings[i]).dump(2);
            out += i ? ",\n    " : "\n    ";
            for (char c : one) {
                out.push_back(c);
                if (c == '\n') out += "    ";
            }
        }
    };
    parallel_for(parts, write, static_cast<unsigned>(parts));
    std::string all = "[";
    for (const auto& t : text) all += t;
    return all + "\n  ]";
}

std::string render_json(const Report& r) {
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
              {"program", program_json(r.scan.program)},
              {"findings", json::array()}};
    if (!r.scan.warnings.empty()) j["warnings"] = r.scan.warnings;
    if (!r.scan.native_modules.empty()) j["native_modules"] = native_modules_json(r.scan.native_modules);
    if (r.assessment) j["assessment"] = assessment_json(*r.assessment);
    if (r.evidence) j["runtime"] = evidence_json(*r.evidence);
    std::string text = j.dump(2) + "\n";
    const std::string empty = "\n  \"findings\": []";  // the report's own key: indented once
    const std::size_t at = text.find(empty);
    return text.replace(at + empty.size() - 2, 2, findings_text(r.scan.findings));
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
        json related = json::array();
        for (std::size_t i = 0; i < f.related.size(); ++i) {
            const Location& l = f.related[i].location;
            related.push_back({{"id", i + 1},
                               {"message", {{"text", f.related[i].label}}},
                               {"physicalLocation",
                                {{"artifactLocation", {{"uri", l.path}, {"uriBaseId", "SRCROOT"}}},
                                 {"region", {{"startLine", l.line}, {"endLine", std::max(l.line, l.end_line)}}}}}});
        }
        if (!related.empty()) result["relatedLocations"] = related;
        json props = {{"reach", to_string(f.reach)}, {"verdict_impact", to_string(f.impact)}, {"source", f.source}};
        if (!f.chain.empty()) props["chain"] = f.chain;
        if (!f.ops.empty()) props["ops"] = f.ops;
        if (!f.observed.empty()) props["observed"] = f.observed;
        props["fix"] = f.fix;  // the rule's help is its template; this is the finding's own (an op's whole runtime message)
        if (f.location.cell > 0) props["notebook_cell"] = f.location.cell;
        result["properties"] = props;
        results.push_back(std::move(result));
    }
    json run = {{"tool", {{"driver", {{"name", "mpsport"}, {"version", r.tool_version}, {"rules", rules}}}}}, {"results", results}};
    if (r.assessment) run["properties"] = assessment_json(*r.assessment);
    if (r.evidence) run["properties"]["runtime"] = evidence_json(*r.evidence);
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
        if (f.reach != Reach::core || !f.chain.empty()) out += fmt::format("      reach: {}\n", reach_text(f));
        for (std::size_t i = 0; i < f.related.size() && i < 5; ++i) out += fmt::format("      related: {}\n", related_text(f.related[i]));
        if (f.related.size() > 5) out += fmt::format("      related: ... and {} more\n", f.related.size() - 5);
        if (!f.note.empty()) out += fmt::format("      note: {}\n", f.note);
        for (const auto& seen : f.observed) out += fmt::format("      observed: {}\n", seen);
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
        const ProgramSummary& p = r.scan.program;
        out += "\n" + style("1", "Program model") + fmt::format(": {} entry point(s); Python files {} core, {} optional, {} tooling, {} unreached\n",
                                                               p.entry_points.size(), p.files[0], p.files[1], p.files[2], p.files[3]);
        for (std::size_t i = 0; i < p.entry_points.size() && i < 12; ++i)
            out += fmt::format("  {}{}: {}\n", p.entry_points[i].path, p.entry_points[i].tooling ? " (tooling)" : "", p.entry_points[i].why);
        if (p.entry_points.size() > 12) out += fmt::format("  ... and {} more (JSON lists them all)\n", p.entry_points.size() - 12);
        if (!p.complete) out += "  " + p.incomplete_reason + "\n";
        out += "\n" + style("1", "MPS release checklist") + (a.static_only ? " (static-only: runtime items not run)" : "") + "\n";
        for (const auto& i : a.items)
            out += fmt::format("  [{}] {}. {}{}: {}\n", status_mark(i.status), i.number, i.title, i.predicted ? " (predicted)" : "", i.detail);
        out += fmt::format("\nVerdict: {} - {}\n", style("1", std::string(to_string(a.verdict))), a.verdict_reason);
        out += fmt::format("Confidence: {}\n", to_string(a.confidence));
        for (const auto& cause : a.confidence_causes) out += "  - " + cause + "\n";
        out += fmt::format("Effort: {:.1f}-{:.1f} hours", a.effort.total.low, a.effort.total.high);
        std::string parts;
        for (const auto& [cat, e] : a.effort.by_category) parts += fmt::format("{}{} {:.1f}-{:.1f}", parts.empty() ? "" : ", ", cat, e.low, e.high);
        out += parts.empty() ? "\n" : " (" + parts + ")\n";
        if (a.effort.tooling.high > 0)
            out += fmt::format("  of which tests, benchmarks and examples: {:.1f}-{:.1f} hours\n", a.effort.tooling.low, a.effort.tooling.high);
    }
    if (r.evidence) {
        const std::string runtime = runtime_sections_text(*r.evidence);
        if (!runtime.empty()) out += "\n" + style("1", "Runtime") + "\n" + runtime;
    }
    return out;
}


std::string render_md(const Report& r) {
    std::string out = fmt::format("# mpsport report: `{}`\n\n", r.scan.root);
    if (r.assessment) {
        const Assessment& a = *r.assessment;
        out += fmt::format("**Verdict: {}** - {}\n\n", to_string(a.verdict), md_escape(a.verdict_reason));
        out += fmt::format("**Confidence:** {}\n\n", to_string(a.confidence));
        for (const auto& c : a.confidence_causes) out += "- " + md_escape(c) + "\n";
        if (!a.confidence_causes.empty()) out += "\n";
        out += fmt::format("**Effort:** {:.1f}-{:.1f} hours (tests, benchmarks and examples: {:.1f}-{:.1f})\n\n", a.effort.total.low,
                           a.effort.total.high, a.effort.tooling.low, a.effort.tooling.high);
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
    if (r.evidence) {
        const std::string runtime = runtime_sections_md(*r.evidence);
        if (!runtime.empty()) out += "## Runtime\n\n" + runtime;
    }
    const auto c = count_by_severity(r.scan.findings);
    out += fmt::format("## Findings ({}: {} blocker, {} major, {} minor, {} info)\n\n", r.scan.findings.size(), c.at("blocker"), c.at("major"),
                       c.at("minor"), c.at("info"));
    if (!r.scan.findings.empty()) {
        out += "| Location | Severity | Reach | Rule | Message | Fix |\n|---|---|---|---|---|---|\n";
        for (const Finding* weighed : by_weight(r.scan.findings)) {
            const Finding& f = *weighed;
            std::string message = f.message + (f.note.empty() ? "" : " (" + f.note + ")");
            for (const auto& rel : f.related) message += "; " + related_text(rel);
            for (const auto& seen : f.observed) message += "; observed: " + seen;
            out += fmt::format("| `{}` | {} | {} | `{}` | {} | {} |\n", location_text(f.location), to_string(f.severity), md_escape(reach_text(f)),
                               f.rule_id, md_escape(message), md_escape(f.fix));
        }
    }
    if (!r.scan.program.entry_points.empty()) {
        out += "\n## Entry points\n\n";
        for (const auto& e : r.scan.program.entry_points)
            out += fmt::format("- `{}`{}: {}\n", e.path, e.tooling ? " (tooling)" : "", md_escape(e.why));
    }
    if (!r.scan.skipped.empty()) {
        out += "\n## Skipped files\n\n";
        for (const auto& s : r.scan.skipped) out += fmt::format("- `{}`: {}\n", s.path, s.reason);
    }
    out += fmt::format("\n_{} files, {} lines scanned by mpsport {}._\n", r.scan.files_scanned, r.scan.lines_scanned, r.tool_version);
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
        out += fmt::format("<p><strong>Verdict: {}</strong> &mdash; {}</p>\n<p><strong>Confidence:</strong> {}</p>\n",
                           to_string(a.verdict), html_escape(a.verdict_reason), to_string(a.confidence));
        if (!a.confidence_causes.empty()) {
            out += "<ul>\n";
            for (const auto& c : a.confidence_causes) out += "<li>" + html_escape(c) + "</li>\n";
            out += "</ul>\n";
        }
        out += fmt::format("<p><strong>Effort:</strong> {:.1f}&ndash;{:.1f} hours (tests, benchmarks and examples: {:.1f}&ndash;{:.1f})</p>\n",
                           a.effort.total.low, a.effort.total.high, a.effort.tooling.low, a.effort.tooling.high);
        out += "<table><tr><th>#</th><th>Item</th><th>Status</th><th>Detail</th></tr>\n";
        for (const auto& i : a.items)
            out += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td></tr>\n", to_string(i.status), i.number,
                               html_escape(i.title), to_string(i.status), i.predicted ? " (predicted)" : "", html_escape(i.detail));
        out += "</table>\n";
    }
    if (r.evidence && !r.evidence->ops.empty()) {
        out += fmt::format("<h2>Ops of the audited step that need attention on MPS (PyTorch {}{})</h2>\n<table><tr><th>Op</th><th>MPS</th>"
                           "<th>Phase</th><th>Count</th><th>Dtypes</th><th>First frame</th></tr>\n",
                           html_escape(r.evidence->target_torch), r.evidence->predicted ? ", predicted" : "");
        for (const auto& op : r.evidence->ops)
            out += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n", html_escape(op.op),
                               html_escape(op.mps_status), html_escape(op.phase), op.count, html_escape(op.dtypes), html_escape(op.first_frame));
        out += "</table>\n";
    }
    if (r.evidence) {
        const std::string runtime = runtime_sections_html(*r.evidence);
        if (!runtime.empty()) out += "<h2>Runtime</h2>\n" + runtime;
    }
    out += fmt::format("<h2>Findings ({})</h2>\n<table><tr><th>Location</th><th>Severity</th><th>Reach</th><th>Rule</th><th>Message</th><th>Fix</th></tr>\n",
                       r.scan.findings.size());
    for (const Finding* weighed : by_weight(r.scan.findings)) {
        const Finding& f = *weighed;
        std::string related;
        for (const auto& rel : f.related) related += "<br><small>" + html_escape(related_text(rel)) + "</small>";
        for (const auto& seen : f.observed) related += "<br><small>observed: " + html_escape(seen) + "</small>";
        out += fmt::format("<tr><td><code>{}</code></td><td class=\"{}\">{}</td><td>{}</td><td><code>{}</code></td><td>{}<br><code>{}</code>{}</td><td>{}</td></tr>\n",
                           html_escape(location_text(f.location)), to_string(f.severity), to_string(f.severity), html_escape(reach_text(f)), f.rule_id,
                           html_escape(f.message), html_escape(f.snippet), related, html_escape(f.fix));
    }
    out += "</table>\n";
    if (!r.scan.program.entry_points.empty()) {
        out += "<h2>Entry points</h2><ul>\n";
        for (const auto& e : r.scan.program.entry_points)
            out += fmt::format("<li><code>{}</code>{}: {}</li>\n", html_escape(e.path), e.tooling ? " (tooling)" : "", html_escape(e.why));
        out += "</ul>\n";
    }
    if (!r.scan.skipped.empty()) {
        out += "<h2>Skipped files</h2><ul>\n";
        for (const auto& s : r.scan.skipped) out += fmt::format("<li><code>{}</code>: {}</li>\n", html_escape(s.path), html_escape(s.reason));
        out += "</ul>\n";
    }
    out += "</body></html>\n";
    return out;
}

}  // namespace

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

std::string md_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

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
