// libFuzzer target: an audit trace (JSON) read into evidence, as `report --trace` does.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "auditor/trace.hpp"
#include "core/mps_tables.hpp"
#include "core/rule_catalogue.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const mpsport::MpsTable table = mpsport::load_mps_table(mpsport::locate_rules_dir({}), mpsport::kDefaultTargetTorch);
    nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    try {
        (void)mpsport::evidence_from_trace(j, table, "fuzz.json");
    } catch (const std::runtime_error&) {
        // a field of the wrong type: an error naming the field
    }
    return 0;
}
