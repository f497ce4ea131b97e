// Renderers: they only render. Every decision (checklist, verdict, effort) comes in the Report.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/evidence.hpp"
#include "core/rule_catalogue.hpp"
#include "core/scan_result.hpp"
#include "reports/checklist.hpp"

namespace mpsport {

enum class Format { text, json, sarif, md, html };
std::optional<Format> parse_format(std::string_view name);

struct Report {
    const ScanResult& scan;
    const RuleCatalogue& catalogue;
    const Assessment* assessment = nullptr;  // null for a plain scan
    const Evidence* evidence = nullptr;
    std::string tool_version;
};

// `color` only applies to text.
std::string render(const Report& report, Format format, bool color = false);

inline constexpr const char* kReportSchema = "mpsport.report/1";

// Text for an HTML page (<, >, &, ") and for a Markdown table cell (|, newlines).
std::string html_escape(std::string_view s);
std::string md_escape(std::string_view s);

}  // namespace mpsport
