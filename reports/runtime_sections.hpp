// The runtime sections of the audit summary and of the reports, from one audited run (or sweep):
// how steps were recognised, the trial port's redirects and blockers, fallbacks per step, the memory
// watermark, the step time against the CPU with the data-loader split, the ranks of a distributed
// run, the batch sweep (a chart in HTML) and the reproducibility record.
#pragma once

#include <string>

#include "core/evidence.hpp"

namespace mpsport {

// "every step (x3 per step)", "once (step 1 only)", ... for an op's calls per traced step.
std::string fallback_frequency(const OpUse& op);

std::string runtime_sections_text(const Evidence& ev);
std::string runtime_sections_md(const Evidence& ev);
std::string runtime_sections_html(const Evidence& ev);

}  // namespace mpsport
