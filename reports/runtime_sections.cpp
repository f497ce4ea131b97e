#include "reports/runtime_sections.hpp"

#include "reports/render.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mpsport {
namespace {

// One runtime section: what to say and the rows of its table, rendered as text, Markdown or HTML.
struct Section {
    std::string title;
    std::vector<std::string> notes;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

std::string mib(double bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

Section steps_section(const Evidence& ev) {
    Section s{"Steps", {}, {}, {}};
    std::string kinds;
    for (const auto& [kind, n] : ev.step_kinds) kinds += fmt::format("{}{} x{}", kinds.empty() ? "" : ", ", kind, n);
    s.notes.push_back(fmt::format("{} backward pass(es); updates recognised: {}", ev.backwards, kinds.empty() ? "none" : kinds));
    return s;
}

Section remap_section(const Evidence& ev) {
    Section s{"Trial port: CUDA remapped to " + ev.remap_target, {}, {"API", "became", "count", "first call", "finding"}, {}};
    s.notes.push_back(fmt::format("{} CUDA API(s) redirected; {} could not be", ev.redirects.size(), ev.blocked.size()));
    for (const auto& r : ev.redirects)
        s.rows.push_back({r.api, r.to, std::to_string(r.count), r.first_frame.empty() ? "-" : r.first_frame, r.finding.empty() ? "-" : r.finding});
    for (const auto& b : ev.blocked)
        s.notes.push_back(fmt::format("NOT REDIRECTABLE ({}): {} at {}: {}", b.kind, b.api, b.frame.empty() ? "?" : b.frame, b.exception));
    return s;
}

Section fallback_section(const Evidence& ev) {
    Section s{"Fallbacks per step", {}, {"op", "phase", "per traced step", "frequency", "first frame"}, {}};
    for (const auto& op : ev.ops) {
        if (op.mps_status != "fallback" || op.per_step.empty()) continue;
        std::string counts;
        for (long n : op.per_step) counts += (counts.empty() ? "" : " ") + std::to_string(n);
        s.rows.push_back({op.op, op.phase, counts, fallback_frequency(op), op.first_frame.empty() ? "-" : op.first_frame});
    }
    return s;
}

Section memory_section(const Evidence& ev) {
    const MemoryWatermark& w = *ev.watermark;
    Section s{"Memory watermark", {}, {}, {}};
    std::string series;
    for (double b : w.bytes) series += (series.empty() ? "" : ", ") + mib(b);
    s.notes.push_back(fmt::format("{} per step: {}", w.series == "rss" ? "RSS (the accelerator allocated nothing)" : "accelerator allocated", series));
    s.notes.push_back(fmt::format("{}{:.1f}% from the first to the last step (threshold {:.0f}%){}", w.rise >= 0 ? "+" : "", 100 * w.rise,
                                  100 * w.threshold, w.leak ? ": SUSPECTED LEAK - memory grows step after step (tensors kept across steps?)" : ": no leak"));
    return s;
}

Section time_section(const Evidence& ev) {
    Section s{"Step time against the CPU", {}, {}, {}};
    if (ev.time_against_cpu) {
        const TimeAgainstCpu& t = *ev.time_against_cpu;
        s.notes.push_back(fmt::format("{}: {:.4f}s per iteration ({:.4f}s in the data loader, {:.4f}s in the step); CPU: {:.4f}s ({:.4f}s step + the same "
                                      "data-loader time)",
                                      ev.device.empty() ? "accelerator" : ev.device, t.accelerator_iteration_s, t.data_s, t.accelerator_step_s,
                                      t.cpu_iteration_s, t.cpu_step_s, t.data_s));
        s.notes.push_back(fmt::format("{:.0f}% faster than the CPU{}", 100 * t.faster,
                                      t.bottleneck ? fmt::format(": less than {:.0f}% - the data pipeline or host-device copies are the likely bottleneck{}",
                                                                 100 * kMinSpeedup, t.accelerator_iteration_s > 0 && t.data_s / t.accelerator_iteration_s > 0.5
                                                                                 ? fmt::format(" (the data loader takes {:.0f}% of the iteration)",
                                                                                               100 * t.data_s / t.accelerator_iteration_s)
                                                                                 : std::string())
                                                   : std::string()));
    } else {
        double data = 0;
        for (double d : ev.data_s_per_step) data += d;
        if (data > 0) s.notes.push_back(fmt::format("{:.4f}s in the data loader over {} step(s); add --compare cpu --time for the CPU's", data, ev.data_s_per_step.size()));
    }
    return s;
}

Section distributed_section(const Evidence& ev) {
    const Distributed& d = *ev.distributed;
    Section s{"Distributed", {}, {"collective", "calls (all ranks)", "first call"}, {}};
    s.notes.push_back(fmt::format("world size {}, backend {}, {} rank trace(s), {} complete{}", d.world_size, d.backend.empty() ? "?" : d.backend,
                                  d.ranks_traced, d.ranks_complete,
                                  d.ddp_wraps ? "; DistributedDataParallel (its gradient reductions: one all_reduce per bucket per backward)" : ""));
    for (const auto& c : d.collectives) s.rows.push_back({c.op, std::to_string(c.count), c.first_frame});
    for (const auto& h : d.uncounted_comm_hooks)
        s.notes.push_back(fmt::format("DDP builtin comm hook {}: it reduces the gradients in C++, so its all_reduce calls are not counted above", h));
    return s;
}

Section sweep_section(const Evidence& ev) {
    Section s{"Batch sweep", {}, {"batch", "step s", "samples/s", "peak RSS", "accelerator", "status"}, {}};
    for (const auto& p : ev.sweep)
        s.rows.push_back({std::to_string(p.batch), p.complete ? fmt::format("{:.4f}", p.step_s) : "-", p.complete ? fmt::format("{:.1f}", p.throughput) : "-",
                          mib(p.rss_peak_bytes), mib(p.accelerator_bytes), p.complete ? "ok" : p.reason.substr(0, 80)});
    return s;
}

std::vector<Section> sections(const Evidence& ev) {
    std::vector<Section> out;
    if (ev.backwards || !ev.step_kinds.empty()) out.push_back(steps_section(ev));
    if (!ev.remap_target.empty()) out.push_back(remap_section(ev));
    if (Section f = fallback_section(ev); !f.rows.empty()) out.push_back(std::move(f));
    if (ev.watermark) out.push_back(memory_section(ev));
    if (Section t = time_section(ev); !t.notes.empty()) out.push_back(std::move(t));
    if (ev.distributed) out.push_back(distributed_section(ev));
    if (!ev.sweep.empty()) out.push_back(sweep_section(ev));
    if (!ev.record.empty()) {
        Section r{"Record", {}, {"", ""}, {}};
        for (const auto& [k, v] : ev.record) r.rows.push_back({k, v});
        out.push_back(std::move(r));
    }
    return out;
}

// Throughput (bars) and step time (line) per batch size, as inline SVG.
std::string sweep_chart(const std::vector<SweepPoint>& sweep) {
    const double w = 520, h = 220, left = 50, bottom = 30, top = 20;
    double max_tp = 0, max_step = 0;
    for (const auto& p : sweep) max_tp = std::max(max_tp, p.throughput), max_step = std::max(max_step, p.step_s);
    if (max_tp <= 0) return "";
    const double slot = (w - left - 20) / static_cast<double>(sweep.size());
    std::string svg = fmt::format("<svg class=\"sweep\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"throughput and step time per batch size\">\n", w, h);
    std::string line;
    for (std::size_t i = 0; i < sweep.size(); ++i) {
        const auto& p = sweep[i];
        const double x = left + slot * static_cast<double>(i) + slot * 0.2, bh = (h - bottom - top) * p.throughput / max_tp;
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#4a7ebb\"><title>batch {}: {:.1f} samples/s</title></rect>\n",
                           x, h - bottom - bh, slot * 0.6, bh, p.batch, p.throughput);
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", x + slot * 0.3, h - bottom + 14, p.batch);
        if (max_step > 0)
            line += fmt::format("{}{:.1f},{:.1f}", line.empty() ? "" : " ", x + slot * 0.3, h - bottom - (h - bottom - top) * p.step_s / max_step);
    }
    if (!line.empty()) svg += "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"" + line + "\"/>\n";
    svg += fmt::format("<text x=\"4\" y=\"14\" font-size=\"11\">samples/s (bars, max {:.0f}); step time (line, max {:.3f}s); x: batch size</text>\n</svg>\n",
                       max_tp, max_step);
    return svg;
}

}  // namespace

std::string fallback_frequency(const OpUse& op) {
    const auto& n = op.per_step;
    if (n.empty()) return "";
    if (n.size() == 1) return fmt::format("x{} in the one traced step (trace --steps 3 to tell every step from once)", n[0]);
    const bool later = std::any_of(n.begin() + 1, n.end(), [](long c) { return c > 0; });
    const bool every = std::all_of(n.begin() + 1, n.end(), [](long c) { return c > 0; });
    if (every) return fmt::format("every step (x{} per step)", n.back());
    if (!later) return "once (step 1 only: set-up or the first step)";
    long steps = std::count_if(n.begin(), n.end(), [](long c) { return c > 0; });
    return fmt::format("in {} of {} steps", steps, n.size());
}

std::string runtime_sections_text(const Evidence& ev) {
    std::string out;
    for (const auto& s : sections(ev)) {
        out += "  " + s.title + ":\n";
        for (const auto& n : s.notes) out += "    " + n + "\n";
        const bool titled = !s.rows.empty() && std::any_of(s.header.begin(), s.header.end(), [](const std::string& h) { return !h.empty(); });
        for (std::size_t r = titled ? 0 : 1; r <= s.rows.size(); ++r) {
            const auto& row = r == 0 ? s.header : s.rows[r - 1];
            std::string line = "   ";
            for (std::size_t i = 0; i < row.size(); ++i) line += fmt::format(" {:<{}}", row[i], i + 1 == row.size() ? 0 : (i == 0 ? 34 : 16));
            out += line + "\n";
        }
    }
    return out;
}

std::string runtime_sections_md(const Evidence& ev) {
    std::string out;
    for (const auto& s : sections(ev)) {
        out += "### " + s.title + "\n\n";
        for (const auto& n : s.notes) out += "- " + md_escape(n) + "\n";
        if (!s.notes.empty()) out += "\n";
        if (s.rows.empty()) continue;
        std::string header = "|", rule = "|";
        for (const auto& h : s.header) header += " " + h + " |", rule += "---|";
        out += header + "\n" + rule + "\n";
        for (const auto& row : s.rows) {
            out += "|";
            for (const auto& c : row) out += " " + md_escape(c) + " |";
            out += "\n";
        }
        out += "\n";
    }
    return out;
}

std::string runtime_sections_html(const Evidence& ev) {
    std::string out;
    for (const auto& s : sections(ev)) {
        out += "<h3>" + html_escape(s.title) + "</h3>\n";
        for (const auto& n : s.notes) out += "<p>" + html_escape(n) + "</p>\n";
        if (s.title == "Batch sweep") out += sweep_chart(ev.sweep);
        if (s.rows.empty()) continue;
        out += "<table><tr>";
        for (const auto& h : s.header) out += "<th>" + html_escape(h) + "</th>";
        out += "</tr>\n";
        for (const auto& row : s.rows) {
            out += "<tr>";
            for (const auto& c : row) out += "<td>" + html_escape(c) + "</td>";
            out += "</tr>\n";
        }
        out += "</table>\n";
    }
    return out;
}

}  // namespace mpsport
