// The 9-item MPS release checklist, the verdict it leads to, and the effort: every decision a
// report shows is made here, never in a renderer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/finding.hpp"
#include "core/rule_catalogue.hpp"
#include "core/scan_result.hpp"
#include "reports/effort.hpp"

namespace mpsport {

enum class ItemStatus { pass, warn, fail, not_run };
std::string_view to_string(ItemStatus s);

struct ChecklistItem {
    int number = 0;
    std::string title;
    ItemStatus status = ItemStatus::not_run;
    bool predicted = false;  // MPS behaviour predicted from op tables, not observed on a Mac
    std::string detail;
    std::vector<std::string> evidence;  // finding fingerprints ("rule@path:line") or trace facts
};

enum class Verdict { migrate, dual_track, stay_on_cuda };
std::string_view to_string(Verdict v);

// How far the verdict can be trusted: high with nothing in the way; medium when it is static-only or
// rests on a partial program model; low when files that could hold findings were not read.
enum class Confidence { high, medium, low };
std::string_view to_string(Confidence c);

struct Assessment {
    std::vector<ChecklistItem> items;
    Verdict verdict = Verdict::migrate;
    std::string verdict_reason;
    Confidence confidence = Confidence::high;
    std::vector<std::string> confidence_causes;
    bool static_only = true;
    EffortSummary effort;
};

// `scan`, when given, adds what the scan could not read and the program model's gaps to the confidence.
Assessment assess(const std::vector<Finding>& findings, const Evidence* evidence, const RuleCatalogue& catalogue,
                  const std::map<std::string, std::size_t>& file_lines, const ScanResult* scan = nullptr);

}  // namespace mpsport
