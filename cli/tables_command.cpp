#include <iostream>

#include "auditor/mps_tables.hpp"
#include "cli/commands.hpp"
#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"

namespace fs = std::filesystem;

namespace mpsport::cli {

int run_tables(const std::optional<std::string>& data_dir, const std::optional<std::string>& rules_dir) {
    const fs::path data = data_dir ? fs::path(*data_dir) : source_dir() / ".." / "shared" / "data" / "pytorch";
    std::error_code ec;
    if (!fs::is_directory(data, ec))
        throw std::runtime_error(data.generic_string() + ": PyTorch data folder not found; pass --data DIR holding native_functions-*.yaml");
    const fs::path rules = locate_rules_dir(rules_dir ? std::optional<fs::path>(*rules_dir) : std::nullopt);
    for (const auto& p : generate_bundled_tables(data, rules)) {
        const MpsTable t = mps_table_from_json(read_file(p), p.generic_string());
        std::size_t native = 0, fallback = 0;
        for (const auto& [op, s] : t.ops) {
            native += s == MpsSupport::native;
            fallback += s == MpsSupport::fallback;
        }
        std::cout << "wrote " << p.generic_string() << ": " << t.ops.size() << " ops, " << native << " with an MPS kernel, " << fallback
                  << " without (CPU fallback)\n";
    }
    return 0;
}

}  // namespace mpsport::cli
