#include <iostream>
#include <set>

#include "auditor/mps_tables.hpp"
#include "cli/commands.hpp"
#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"

namespace fs = std::filesystem;

namespace mpsport::cli {
namespace {

void print_table(const fs::path& p) {
    const MpsTable t = mps_table_from_json(read_file(p), p.generic_string());
    std::size_t native = 0, fallback = 0;
    for (const auto& [op, s] : t.ops) {
        native += s == MpsSupport::native;
        fallback += s == MpsSupport::fallback;
    }
    std::cout << "wrote " << p.generic_string() << ": " << t.ops.size() << " ops, " << native << " with an MPS kernel, " << fallback
              << " without (CPU fallback)\n";
}

// How much of the table the static pass can see: fallback ops (base names) that some Python name reaches.
void print_op_map(const fs::path& p, const fs::path& rules) {
    const PythonOpMap m = python_op_map_from_json(read_file(p), p.generic_string());
    const MpsTable t = load_mps_table(rules, m.torch_version);
    std::set<std::string> fallback, reached;
    for (const auto& [op, s] : t.ops)
        if (s == MpsSupport::fallback && op.find('.') == std::string::npos) fallback.insert(op);
    for (const auto* names : {&m.functions, &m.methods})
        for (const auto& [name, ops] : *names)
            for (const auto& op : ops)
                if (fallback.count(op)) reached.insert(op);
    std::cout << "wrote " << p.generic_string() << ": " << m.functions.size() << " Python names, " << m.methods.size()
              << " Tensor methods; " << reached.size() << " of " << fallback.size() << " fallback ops reachable from a Python name\n";
}

}  // namespace

int run_tables(const std::optional<std::string>& data_dir, const std::optional<std::string>& rules_dir) {
    const fs::path data = data_dir ? fs::path(*data_dir) : source_dir() / ".." / "shared" / "data" / "pytorch";
    std::error_code ec;
    if (!fs::is_directory(data, ec))
        throw std::runtime_error(data.generic_string() + ": PyTorch data folder not found; pass --data DIR holding native_functions-*.yaml");
    const fs::path rules = locate_rules_dir(rules_dir ? std::optional<fs::path>(*rules_dir) : std::nullopt);
    for (const auto& p : generate_bundled_tables(data, rules)) {
        if (p.filename().string().rfind("mps-ops-", 0) == 0) print_table(p);
        else print_op_map(p, rules);
    }
    return 0;
}

}  // namespace mpsport::cli
