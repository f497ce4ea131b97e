#include "analyzer/configs/config_link.hpp"

#include <optional>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <stdexcept>
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "analyzer/match.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"

namespace mpsport::configs {
namespace {

struct ConfigValue {
    std::string key;   // leaf key
    std::string path;  // dotted key path, e.g. trainer.device
    std::string value;  // lower-cased scalar text
    std::string raw;    // the scalar as written
    std::size_t begin = 0;
    std::size_t end = 0;
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

void yaml_values(const YAML::Node& node, const std::string& prefix, std::vector<ConfigValue>& out) {
    if (!node.IsMap()) return;
    for (const auto& kv : node) {
        if (!kv.first.IsScalar()) continue;
        const std::string key = kv.first.as<std::string>();
        const std::string path = prefix.empty() ? key : prefix + "." + key;
        if (kv.second.IsScalar()) {
            const std::string value = kv.second.as<std::string>();
            const std::size_t begin = static_cast<std::size_t>(std::max(0, kv.first.Mark().pos));
            const std::size_t value_pos = static_cast<std::size_t>(std::max(0, kv.second.Mark().pos));
            out.push_back({key, path, lower(value), value, begin, std::max(value_pos + value.size(), begin + key.size())});
        } else {
            yaml_values(kv.second, path, out);
        }
    }
}

std::size_t offset_of(const SourceText& source, int line, int column) {
    const std::string_view l = source.line(line);
    if (l.data() == nullptr) return source.text().size();
    return static_cast<std::size_t>(l.data() - source.text().data()) + static_cast<std::size_t>(std::clamp(column - 1, 0, static_cast<int>(l.size())));
}

void toml_values(const toml::table& t, const std::string& prefix, const SourceText& source, std::vector<ConfigValue>& out) {
    for (const auto& [k, node] : t) {
        const std::string key(k.str());
        const std::string path = prefix.empty() ? key : prefix + "." + key;
        if (const auto* sub = node.as_table()) {
            toml_values(*sub, path, source, out);
            continue;
        }
        std::string value;
        if (const auto* s = node.as_string()) value = s->get();
        else if (const auto* b = node.as_boolean()) value = b->get() ? "true" : "false";
        else if (const auto* i = node.as_integer()) value = std::to_string(i->get());
        else continue;
        const auto& r = k.source();
        const std::size_t begin = offset_of(source, static_cast<int>(r.begin.line), static_cast<int>(r.begin.column));
        const auto& vr = node.source();
        const std::size_t end = offset_of(source, static_cast<int>(vr.end.line), static_cast<int>(vr.end.column));
        out.push_back({key, path, lower(value), value, begin, std::max(end, begin + key.size())});
    }
}

// JSON that yaml-cpp refuses although it is JSON: a key longer than YAML's 1,024-character limit on
// implicit keys (RWKV's 2.4 MB 20B_tokenizer.json, a vocabulary of long keys). Read with the JSON
// parser's events, in document order, as yaml_values reads a document: scalars under nested objects,
// nothing inside arrays. Each key is placed by finding its JSON spelling in a window after the
// previous one; one written otherwise (other escapes) is placed there too.
class JsonValues : public nlohmann::json_sax<nlohmann::json> {
public:
    JsonValues(const std::string& text, std::vector<ConfigValue>& out) : m_text(text), m_out(out) {}

    bool key(string_t& k) override {
        constexpr std::size_t kWindow = 4096;
        const std::string spelled = nlohmann::json(k).dump(-1, ' ', true);
        const std::size_t found = std::string_view(m_text).substr(m_cursor, kWindow + spelled.size()).find(spelled);
        m_key_at = found == std::string::npos ? m_cursor : m_cursor + found;
        m_key_end = std::min(m_key_at + spelled.size(), m_text.size());  // a key spelled otherwise: within the text
        if (found != std::string::npos) m_cursor = m_key_end;
        if (!m_path.empty()) m_path.back() = k;
        return true;
    }
    bool start_object(std::size_t) override {
        if (in_objects()) m_path.emplace_back();
        else ++m_arrays;  // an object inside an array: not read, as yaml_values does not
        return true;
    }
    bool end_object() override {
        if (m_arrays > 0) --m_arrays;
        else if (!m_path.empty()) m_path.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        ++m_arrays;
        return true;
    }
    bool end_array() override {
        --m_arrays;
        return true;
    }
    bool null() override { return true; }
    bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
    bool number_integer(number_integer_t v) override { return scalar(std::to_string(v)); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(std::to_string(v)); }
    bool number_float(number_float_t, const string_t& s) override { return scalar(s); }
    bool string(string_t& v) override { return scalar(v); }
    bool binary(binary_t&) override { return true; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
        m_error_at = position;
        m_error = e.what();
        return false;
    }

    std::size_t error_at() const { return m_error_at; }
    const std::string& error() const { return m_error; }

private:
    const std::string& m_text;
    std::vector<ConfigValue>& m_out;
    std::vector<std::string> m_path;  // the key at each level of nested objects
    int m_arrays = 0;                 // depth inside arrays (and objects within them)
    std::size_t m_cursor = 0, m_key_at = 0, m_key_end = 0, m_error_at = 0;
    std::string m_error;

    bool in_objects() const { return m_arrays == 0; }
    bool scalar(const std::string& raw) {
        if (m_arrays > 0 || m_path.empty()) return true;
        std::string dotted;
        for (const auto& k : m_path) dotted += (dotted.empty() ? "" : ".") + k;
        m_out.push_back({m_path.back(), dotted, lower(raw), raw, m_key_at, m_key_end});
        return true;
    }
};

// HyperPyYAML's `loss: !name:speechbrain.nnet.losses.transducer_loss` (and `!new:`, `!apply:`): a
// node whose tag is one of `tags` followed by a dotted name, anywhere in the document (a list of
// modules too), as the value of a pseudo-key: the tag itself.
void yaml_tagged(const YAML::Node& node, const std::vector<std::string>& tags, std::vector<ConfigValue>& out) {
    const std::string& tag = node.Tag();
    for (const auto& t : tags) {
        if (tag.size() <= t.size() || tag.compare(0, t.size(), t) != 0) continue;
        const std::string name = tag.substr(t.size());
        const std::size_t at = static_cast<std::size_t>(std::max(0, node.Mark().pos));
        out.push_back({t, t, lower(name), name, at, at + tag.size()});
    }
    if (node.IsMap()) {
        for (const auto& kv : node) yaml_tagged(kv.second, tags, out);
    } else if (node.IsSequence()) {
        for (const auto& item : node) yaml_tagged(item, tags, out);
    }
}

// `tags` (readers.config_target_tags): YAML tags that name code, read as values of the tag.
std::vector<ConfigValue> read_values(const std::string& path, const SourceText& source, const std::vector<std::string>& tags) {
    std::vector<ConfigValue> out;
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".toml") == 0) {
        try {
            toml_values(toml::parse(source.text()), "", source, out);
        } catch (const toml::parse_error& e) {
            throw std::runtime_error("invalid TOML at line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
        }
        return out;
    }
    // A .json file by the JSON parser: yaml-cpp spent most of the bench tree's 1.7 s config phase on
    // JSON files (LoRA's vocabularies). YAML 1.2 reads JSON too, so a .json file that is not strict
    // JSON gets a second chance as YAML.
    std::optional<std::string> json_error;
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
        JsonValues events(source.text(), out);
        if (nlohmann::json::sax_parse(source.text(), &events)) return out;
        const std::size_t at = std::min(events.error_at(), source.text().size());
        json_error = "invalid JSON at line " + std::to_string(source.line_of(at > 0 ? at - 1 : 0)) + ": " + events.error();
        out.clear();
    }
    try {
        // a multi-document file has each document checked
        for (const auto& doc : YAML::LoadAll(source.text())) {
            yaml_values(doc, "", out);
            if (!tags.empty()) yaml_tagged(doc, tags, out);
        }
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(json_error ? *json_error : "invalid YAML/JSON at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    return out;
}

const std::vector<std::string>& rule_list(const Rule& r, const char* name) {
    static const std::vector<std::string> none;
    auto it = r.params.find(name);
    return it == r.params.end() ? none : it->second;
}

// The Python sites that read `key` (the leaf of the key path `path`): first in the files that load
// this config, else anywhere. Anywhere, a nested key's read must also write the key above it:
// EDVR's `dist_params.backend: nccl` is not what `args.backend` (a dataset's IO backend in a metrics
// script) reads. They become the finding's related locations (and are named in its message).
std::vector<std::pair<std::string, KeyRead>> consumer_sites(const std::string& path, const std::string& key, const std::vector<PythonFile>& loaders,
                                                             const std::vector<PythonFile>& python) {
    std::string parent;
    if (const std::size_t dot = path.rfind('.'); dot != std::string::npos && dot > 0) {
        const std::size_t before = path.rfind('.', dot - 1);
        parent = path.substr(before == std::string::npos ? 0 : before + 1, dot - (before == std::string::npos ? 0 : before + 1));
    }
    std::vector<std::pair<std::string, KeyRead>> sites;
    for (const auto* files : {&loaders, &python}) {
        const bool anywhere = files == &python;
        for (const auto& f : *files)
            for (const auto& r : f.facts->reads)
                if (r.key == key && (!anywhere || parent.empty() || r.text.find(parent) != std::string::npos)) sites.emplace_back(*f.path, r);
        if (!sites.empty()) break;
    }
    return sites;
}

std::string describe_sites(const std::string& key, const std::vector<std::pair<std::string, KeyRead>>& sites) {
    if (sites.empty()) return "no read of `" + key + "` found in the Python code (passed on whole, or through **kwargs?)";
    std::string out = "read at ";
    for (std::size_t i = 0; i < sites.size() && i < 3; ++i)
        out += (i ? ", " : "") + sites[i].first + ":" + std::to_string(sites[i].second.line) + " (`" + sites[i].second.text + "`)";
    if (sites.size() > 3) out += " and " + std::to_string(sites.size() - 3) + " more";
    return out;
}

// `target: ldm.models.diffusion.ddpm.LatentDiffusion`: an import of the module that holds the name,
// written as `from ldm.models.diffusion.ddpm import LatentDiffusion` (the program model resolves
// either reading: a module named in full, or a name inside one).
// `dispatch_keys`: the key paths the code imports a module from (`importlib.import_module(cfg.model.type)`:
// "model.type"); a dotted value there is an import too, marked with its key path.
std::vector<ImportFact> config_targets(const std::vector<ConfigValue>& values, const SourceText& source,
                                       const std::vector<std::string>& keys, const std::set<std::string>& dispatch_keys) {
    static const std::regex dotted(R"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+)");
    std::vector<ImportFact> out;
    for (const auto& v : values) {
        const bool dispatched = dispatch_keys.count(v.path) > 0;
        if ((!dispatched && std::find(keys.begin(), keys.end(), v.key) == keys.end()) || !std::regex_match(v.raw, dotted)) continue;
        ImportFact imp;
        if (dispatched) imp.config_key = v.path;
        const std::size_t dot = v.raw.rfind('.');
        imp.module = v.raw.substr(0, dot);
        imp.names = {v.raw.substr(dot + 1)};
        imp.line = source.line_of(v.begin);
        out.push_back(std::move(imp));
    }
    return out;
}

}  // namespace

std::vector<DataReader> config_readers(const std::string& config_path, const NamedFiles& names, const std::vector<PythonFile>& python,
                                       const std::vector<Launch>& launches, const HydraSelection& hydra) {
    std::vector<DataReader> out;
    for (const auto& [p, line] : names.readers(config_path)) {
        DataReader r;
        r.path = *python[p].path;
        r.line = line;
        r.how = "names " + config_path;
        const PythonConfigFacts& facts = *python[p].facts;
        const auto literal = std::find_if(facts.files.begin(), facts.files.end(), [&](const PathRef& f) { return names_path(f.path, config_path); });
        const auto folder = literal != facts.files.end() ? std::nullopt : hydra_folder_of(facts, r.path, config_path);
        const PathRef* site = literal != facts.files.end() ? &*literal : folder ? folder->folder : nullptr;
        if (site) {
            r.guard = site->guard;
            r.guard_note = site->guard_note;
        }
        if (folder && !folder->folder->hydra_name.empty()) {
            // The options the launch scripts of this file pick count as loaded; with none, a bare run.
            std::vector<std::vector<std::string>> runs;
            for (const auto& l : launches)
                if (l.script == r.path && !l.overrides.empty()) runs.push_back(l.overrides);
            runs.emplace_back();
            const bool loaded = std::any_of(runs.begin(), runs.end(), [&](const std::vector<std::string>& overrides) {
                return hydra.selected(folder->resolved, folder->folder->hydra_name, overrides, config_path);
            });
            if (!loaded) {
                r.unselected = true;
                std::string primary = folder->folder->hydra_name;
                if (primary.find('.') == std::string::npos) primary += ".yaml";
                r.how = "Hydra option below " + folder->resolved + ", not selected by " + folder->resolved + primary;
            }
        }
        out.push_back(std::move(r));
    }
    for (DataReader& r : launch_readers(config_path, launches)) out.push_back(std::move(r));
    return out;
}

std::set<std::string> rule_keys(const RuleCatalogue& catalogue) {
    std::set<std::string> keys;
    for (const auto& r : catalogue.rules())
        if (r.engine == "config")
            for (const auto& k : rule_list(r, "keys")) keys.insert(k);
    return keys;
}

ConfigOutcome analyze_config(const FileEntry& file, std::vector<DataReader> readers, const std::vector<PythonFile>& python,
                             const RuleCatalogue& catalogue, std::uintmax_t max_file_size, const std::set<std::string>& dispatch_keys) {
    ConfigOutcome out;
    out.readers = std::move(readers);
    // the files that name it, then the scripts launched with it: where the keys are read
    std::vector<PythonFile> loaders;
    for (const auto& r : out.readers) {
        const auto p = std::find_if(python.begin(), python.end(), [&](const PythonFile& f) { return *f.path == r.path; });
        if (p != python.end() && std::none_of(loaders.begin(), loaders.end(), [&](const PythonFile& f) { return f.path == p->path; }))
            loaders.push_back(*p);
    }
    if (out.readers.empty()) return out;
    out.referenced = true;
    if (file.size > max_file_size) {
        out.skip_reason = "oversized: " + std::to_string(file.size) + " bytes (limit " + std::to_string(max_file_size) + "; raise --max-file-size)";
        return out;
    }
    try {
        std::string text = read_file(file.absolute);
        if (auto problem = text_problem(text)) {
            out.skip_reason = *problem;
            return out;
        }
        const SourceText source(std::move(text));
        out.lines = source.line_count();
        const DataReaderVocabulary& vocabulary = catalogue.program().readers;
        const auto values = read_values(file.path, source, vocabulary.config_target_tags);
        std::vector<std::string> target_keys = vocabulary.config_target_keys;
        target_keys.insert(target_keys.end(), vocabulary.config_target_tags.begin(), vocabulary.config_target_tags.end());
        out.targets = config_targets(values, source, target_keys, dispatch_keys);
        std::vector<Match> matches;
        std::vector<std::vector<std::pair<std::string, KeyRead>>> related;  // per match: the reading sites
        std::set<std::string> fired;
        // Rules without `with` first, so `with: config-cuda-device` sees whether that one fired.
        std::vector<const Rule*> rules;
        for (const auto& r : catalogue.rules())
            if (r.engine == "config") rules.push_back(&r);
        std::stable_sort(rules.begin(), rules.end(), [](const Rule* a, const Rule* b) { return rule_list(*a, "with").size() < rule_list(*b, "with").size(); });
        for (const Rule* r : rules) {
            const auto& keys = rule_list(*r, "keys");
            const auto& with = rule_list(*r, "with");
            if (!with.empty() && !std::all_of(with.begin(), with.end(), [&](const std::string& w) { return fired.count(w) > 0; })) continue;
            const std::regex value(rule_list(*r, "values").empty() ? ".*" : rule_list(*r, "values").front(), std::regex::icase);
            for (const auto& v : values) {
                if (std::find(keys.begin(), keys.end(), v.key) == keys.end() || !std::regex_match(v.value, value)) continue;
                Match m;
                m.rule = r;
                m.begin = v.begin;
                m.end = v.end;
                m.captures["key"] = v.path;
                m.captures["value"] = v.value;
                m.captures["finding"] = v.path + ": " + v.value;
                m.captures["loaders"] = out.readers.front().path;
                const auto sites = consumer_sites(v.path, v.key, loaders, python);
                m.captures["consumers"] = describe_sites(v.key, sites);
                // A key no Python site reads may change nothing (StyleTTS2's config_ft.yml sets `device:
                // "cuda"`, and train_finetune.py hard-codes its own): an edit to make, at most minor, or
                // what the rule's `unread` says.
                const Severity unread = rule_list(*r, "unread").empty() ? Severity::minor : *parse_severity(rule_list(*r, "unread").front());
                if (sites.empty() && r->severity > unread) {
                    m.severity = unread;
                    m.note = "no Python site reads `" + v.key + "`: the value may be unused (or the config is passed on whole)";
                }
                m.subject = v.path;
                matches.push_back(std::move(m));
                related.push_back(sites);
                fired.insert(r->id);
            }
        }
        // One match at a time, so that each finding gets its own reading sites (suppressed ones add nothing).
        const Suppressions suppressions = Suppressions::parse(source);
        for (std::size_t i = 0; i < matches.size(); ++i) {
            const std::size_t before = out.findings.size();
            append_findings({matches[i]}, source, file.path, suppressions, out.findings);
            if (out.findings.size() == before) continue;
            for (const auto& [path, read] : related[i]) {
                RelatedLocation rel;
                rel.location.path = path;
                rel.location.line = rel.location.end_line = read.line;
                rel.label = "reads " + read.text;
                out.findings.back().related.push_back(std::move(rel));
            }
        }
    } catch (const std::exception& e) {
        out.findings.clear();
        out.skip_reason = e.what();
    }
    return out;
}

}  // namespace mpsport::configs
