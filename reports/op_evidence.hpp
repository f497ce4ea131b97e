// The same op, predicted from source and observed at runtime: one finding with evidence from both.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/finding.hpp"

namespace mpsport {

// A static finding that names an aten op (Finding::ops) and a runtime op use of the same op whose
// first user frame is the finding's file and line become one: the finding records what the audit saw
// and becomes source "static+runtime"; the op use names the finding's fingerprint.
void join_op_evidence(std::vector<Finding>& findings, Evidence& evidence);

// `--remap`: each redirect and each API the remap could not redirect is a finding with source "runtime",
// merged into a static finding at the same file and line when there is one (source "static+runtime").
// New findings get fingerprints; the findings are sorted again.
void join_remap_evidence(std::vector<Finding>& findings, Evidence& evidence);

// "upgrading from PyTorch 2.6.0 to 2.14.1 removes N of M predicted fallbacks on the training path"
// (calls in core or optional reach), or "" when the scan targeted the newest version or predicted no
// fallback there.
std::string upgrade_what_if(const std::vector<Finding>& findings, const std::string& target_torch);

}  // namespace mpsport
