#include "core/rule_schema.hpp"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "core/paths.hpp"
#include "core/rule_catalogue.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

// YAML to JSON with YAML's plain-scalar typing (as PyYAML's safe_load): quoted scalars are
// strings; plain ones are null, booleans, integers or floats when they read as one.
nlohmann::json to_json(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined: return nullptr;
        case YAML::NodeType::Sequence: {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& item : n) a.push_back(to_json(item));
            return a;
        }
        case YAML::NodeType::Map: {
            nlohmann::json o = nlohmann::json::object();
            for (const auto& kv : n) o[kv.first.as<std::string>()] = to_json(kv.second);
            return o;
        }
        case YAML::NodeType::Scalar: break;
    }
    const std::string s = n.Scalar();
    if (n.Tag() == "!") return s;  // quoted
    if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    if (!s.empty() && s.find_first_not_of("+-0123456789") == std::string::npos && s.find_first_of("0123456789") != std::string::npos) {
        try {
            std::size_t used = 0;
            const long long v = std::stoll(s, &used);
            if (used == s.size()) return v;
        } catch (const std::exception&) {
        }
    }
    if (!s.empty() && s.find_first_not_of("+-0123456789.eE") == std::string::npos && s.find_first_of("0123456789") != std::string::npos) {
        try {
            std::size_t used = 0;
            const double v = std::stod(s, &used);
            if (used == s.size()) return v;
        } catch (const std::exception&) {
        }
    }
    return s;
}

// "<root> [python] [guard]" -> "python.guard"
std::string where(const std::vector<std::string>& context) {
    std::string out;
    for (const auto& c : context) {
        if (c == "<root>") continue;
        std::string part = c;
        if (part.size() >= 2 && part.front() == '[' && part.back() == ']') part = part.substr(1, part.size() - 2);
        if (part.size() >= 2 && part.front() == '"' && part.back() == '"') part = part.substr(1, part.size() - 2);
        out += out.empty() ? part : "." + part;
    }
    return out;
}

// valijson's wording for an unexpected key, made to read like the rest of the errors.
std::string plain(const std::string& description) {
    const std::string marker = "constraints: '";
    const auto at = description.find(marker);
    if (description.find("could not be validated using 'properties'") != std::string::npos && at != std::string::npos) {
        std::string key = description.substr(at + marker.size());
        key = key.substr(0, key.find('\''));
        return "unknown key '" + key + "' (see the schema for the keys a rule may have)";
    }
    return description;
}

}  // namespace

struct RuleSchemas::Impl {
    valijson::Schema schemas[3];
};

namespace {

void read_schema(const fs::path& file, valijson::Schema& schema) {
    try {
        const nlohmann::json doc = nlohmann::json::parse(read_file(file));
        valijson::SchemaParser parser;
        valijson::adapters::NlohmannJsonAdapter adapter(doc);
        parser.populateSchema(adapter, schema);
    } catch (const std::exception& e) {
        throw RuleError(file.generic_string() + ": cannot use this JSON Schema (" + e.what() + ")");
    }
}

void check(const valijson::Schema& schema, const YAML::Node& doc, const fs::path& file) {
    const nlohmann::json json = to_json(doc);
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter adapter(json);
    if (validator.validate(schema, adapter, &results)) return;
    // valijson reports the outer failures first ("failed to match a subschema"); the innermost is the cause.
    valijson::ValidationResults::Error error, last;
    std::string message;
    while (results.popError(error)) {
        const std::string w = where(error.context);
        const std::string line = (w.empty() ? "" : w + ": ") + plain(error.description);
        if (message.empty() || error.context.size() >= last.context.size()) {
            message = line;
            last = error;
        }
    }
    throw RuleError(file.generic_string() + ": " + message);
}

}  // namespace

RuleSchemas::RuleSchemas(const fs::path& rules_dir) : m_impl(std::make_unique<Impl>()) {
    const char* names[3] = {"rule.schema.json", "packages.schema.json", "program.schema.json"};
    for (int i = 0; i < 3; ++i) read_schema(rules_dir / names[i], m_impl->schemas[i]);
}

RuleSchemas::~RuleSchemas() = default;
RuleSchemas::RuleSchemas(RuleSchemas&&) noexcept = default;

void RuleSchemas::validate(const YAML::Node& doc, Kind kind, const fs::path& file) const {
    check(m_impl->schemas[static_cast<int>(kind)], doc, file);
}

void validate_with_schema(const YAML::Node& doc, const fs::path& schema_file, const fs::path& file) {
    valijson::Schema schema;
    read_schema(schema_file, schema);
    check(schema, doc, file);
}

}  // namespace mpsport
