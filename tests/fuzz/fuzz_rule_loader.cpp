// libFuzzer target: one rule file (YAML) loaded into a copy of the bundled catalogue, through the
// schema validation and the C++ checks. Any problem must be a RuleError naming the file.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/rule_catalogue.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path dir = [] {
        const fs::path d = fs::temp_directory_path() / ("mpsport-fuzz-rules-" + std::to_string(::getpid()));
        fs::remove_all(d);
        fs::create_directories(d / "device");
        const fs::path rules = mpsport::locate_rules_dir({});  // $MPSPORT_RULES on a machine without the source tree
        for (const char* f : {"program.yaml", "rule.schema.json", "packages.schema.json", "program.schema.json"})
            fs::copy_file(rules / f, d / f);
        fs::copy_file(rules / "device/cuda-method-call.yaml", d / "device/cuda-method-call.yaml");
        return d;
    }();
    std::ofstream(dir / "device/fuzz-rule.yaml", std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                                             static_cast<std::streamsize>(size));
    try {
        (void)mpsport::RuleCatalogue::load(dir);
    } catch (const mpsport::RuleError&) {
    }
    return 0;
}
