// A Finding as JSON, as the JSON report writes it.
#pragma once

#include <nlohmann/json.hpp>

#include "core/finding.hpp"

namespace mpsport {

nlohmann::json finding_to_json(const Finding& f);

}  // namespace mpsport
