// Finding <-> JSON, shared by the JSON report, the scan cache and trace reading.
#pragma once

#include <nlohmann/json.hpp>

#include "core/finding.hpp"

namespace mpsport {

nlohmann::json finding_to_json(const Finding& f);
// Throws nlohmann::json::exception on a malformed object.
Finding finding_from_json(const nlohmann::json& j);

}  // namespace mpsport
