// A rule as loaded from rules/<family>/<id>.yaml. Rules are data; engines read the part for them.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/finding.hpp"

namespace mpsport {

struct EffortModel {
    std::string per = "site";  // site | file | kloc
    double low = 0;            // hours per unit
    double high = 0;
    double setup_low = 0;      // shared once per file in which the rule fires
    double setup_high = 0;
    double cap_high = 0;       // the most one rule can add across a repo (0: no cap)
};

struct RuleDocs {
    std::string what;
    std::string why;
    std::string example;
};

struct Rule {
    std::string id;
    std::string engine;  // python | manifest | clang | runtime
    Severity severity = Severity::info;
    std::string category;
    VerdictImpact impact = VerdictImpact::none;
    EffortModel effort;
    std::string message;  // may hold {capture} placeholders
    std::string fix;
    RuleDocs docs;
    std::vector<std::string> references;
    // Literal strings; a file holding none of them is never parsed for this rule.
    std::vector<std::string> triggers;

    // engine: python
    std::string query;      // tree-sitter query, @finding marks what is reported
    std::string analysis;   // name of a registered analysis, for what a query cannot say
    // Availability checks around a match: downgrade (CUDA-only check -> info, MPS-aware -> dropped),
    // mps-aware (dropped only when the check mentions MPS), none (ignored).
    std::string guard = "downgrade";
    // engine: manifest
    std::string manifest_check;             // cuda-only-packages | line-pattern
    std::string line_pattern;               // ECMAScript regex, for line-pattern
    std::vector<std::string> file_kinds;    // which manifest kinds the rule reads

    // Free-form string lists for analyses (creators, sinks, ...).
    std::map<std::string, std::vector<std::string>> params;

    std::filesystem::path source;  // the .yaml file
};

// The CUDA-only package list (rules/packages/*.yaml).
struct PackageInfo {
    std::string import_name;                 // top-level module, e.g. flash_attn
    std::vector<std::string> distributions;  // names in manifests, e.g. flash-attn, flash_attn
    std::string alternative;                 // what to use on MPS
    VerdictImpact impact = VerdictImpact::stay;
    std::string why;
};

}  // namespace mpsport
