// The JSON Schemas of the rule files (rules/*.schema.json), checked in C++ when the catalogue
// loads: a misspelt key or a wrong type is an error naming the file and the key, never ignored.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace YAML { class Node; }

namespace mpsport {

class RuleSchemas {
public:
    // Reads rule.schema.json, packages.schema.json and program.schema.json from `rules_dir`;
    // throws RuleError naming a schema that is missing or not a valid schema.
    explicit RuleSchemas(const std::filesystem::path& rules_dir);
    ~RuleSchemas();
    RuleSchemas(RuleSchemas&&) noexcept;

    enum class Kind { rule, packages, program };
    // Throws RuleError "<file>: <where>: <what>" for the first problems of `doc`.
    void validate(const YAML::Node& doc, Kind kind, const std::filesystem::path& file) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The same check against one schema file, for data read outside the catalogue (rules/mps/python-names.yaml,
// which only `mpsport tables` reads, against python-names.schema.json beside it).
void validate_with_schema(const YAML::Node& doc, const std::filesystem::path& schema_file, const std::filesystem::path& file);

}  // namespace mpsport
