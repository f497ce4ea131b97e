#include "analyzer/lines/shell_guards.hpp"

#include "core/source_text.hpp"

#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string_view>

extern "C" const TSLanguage* tree_sitter_bash();

namespace mpsport::lines {
namespace {

// What a test says about a Mac: it names macOS (or names it negated), or it probes the CUDA toolkit.
enum class Test { none, mac, not_mac, cuda, no_cuda };

bool has_any(std::string_view text, const std::vector<std::string>& words) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
        // a path (/usr/local/cuda) is looked for as written, a name as a word
        return w.find('/') != std::string::npos ? text.find(w) != std::string_view::npos : contains_word(text, w);
    });
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Whether a condition is a test: `[ ]`, `[[ ]]`, `test`, a negation, a lookup of a command
// (`command -v`, `which`, `type`, `hash`), or running a probe itself (`nvidia-smi >/dev/null`). An
// assignment (`export CUDA_HOME=... && pip install`) is no test of anything.
bool is_test(std::string_view cond, const GuardVocabulary& v) {
    if (cond.empty()) return false;
    if (cond.front() == '[' || cond.front() == '!' || cond.rfind("test ", 0) == 0) return true;
    for (std::string_view lookup : {"command -v", "which ", "type ", "hash "})
        if (cond.rfind(lookup, 0) == 0) return true;
    const std::string_view first = cond.substr(0, cond.find_first_of(" \t;&|<>"));
    return std::any_of(v.shell_cuda_probes.begin(), v.shell_cuda_probes.end(), [&](const std::string& p) { return first == p; });
}

Test classify(std::string_view cond, const GuardVocabulary& v) {
    cond = trim(cond);
    if (!is_test(cond, v)) return Test::none;
    const bool bang = !cond.empty() && cond.front() == '!';
    const bool unequal = cond.find("!=") != std::string_view::npos;
    if (has_any(cond, v.shell_platform_probes)) {
        if (has_any(cond, v.mac_strings)) return (bang != unequal) ? Test::not_mac : Test::mac;
        if (has_any(cond, v.shell_linux_strings)) return (bang != unequal) ? Test::none : Test::not_mac;
        return Test::none;
    }
    // `[ "$CU_VERSION" != "cpu" ]`: the CUDA build; `== "cpu"`: the CPU one
    if (has_any(cond, v.shell_cuda_version_variables) && has_any(cond, v.shell_cpu_strings))
        return (bang != unequal) ? Test::cuda : Test::no_cuda;
    // `[ "$PLATFORM" = "cuda" ]`: a variable compared with the CUDA flavour's name (a word on its own,
    // quoted or not: `$CUDA_HOME` is no such value)
    if ((cond.find('=') != std::string_view::npos) && std::any_of(v.shell_cuda_values.begin(), v.shell_cuda_values.end(), [&](const std::string& w) {
            for (const std::string& quoted : {"\"" + w + "\"", "'" + w + "'", "= " + w + " ", "= " + w + "]"})
                if (cond.find(quoted) != std::string_view::npos) return true;
            return false;
        }))
        return (bang != unequal) ? Test::no_cuda : Test::cuda;
    if (has_any(cond, v.shell_cuda_probes)) {
        const bool empty_test = cond.find("-z ") != std::string_view::npos;
        return (bang != empty_test) ? Test::no_cuda : Test::cuda;
    }
    return Test::none;
}

class Finder {
public:
    Finder(const std::string& text, const GuardVocabulary& v) : m_text(text), m_v(v) {}

    void visit(TSNode node) {
        const std::string_view type = ts_node_type(node);
        if (type == "if_statement" || type == "elif_clause") if_branches(node);
        else if (type == "case_statement") case_arms(node);
        else if (type == "list") list_sides(node);
        const uint32_t n = ts_node_child_count(node);
        for (uint32_t i = 0; i < n; ++i) visit(ts_node_child(node, i));
    }

    std::vector<GuardedRegion> take() { return std::move(m_regions); }

private:
    std::string_view text(TSNode n) const { return std::string_view(m_text).substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n)); }
    std::string_view span(std::size_t from, std::size_t to) const { return std::string_view(m_text).substr(from, to > from ? to - from : 0); }

    void add(std::size_t begin, std::size_t end, Test t, bool taken_when_true, std::string_view cond) {
        GuardKind g = GuardKind::none;
        if (taken_when_true) {
            if (t == Test::not_mac) g = GuardKind::platform;
            if (t == Test::cuda) g = GuardKind::device_check;
        } else {
            if (t == Test::mac) g = GuardKind::platform;
            if (t == Test::no_cuda) g = GuardKind::device_check;
        }
        if (g == GuardKind::none || end <= begin) return;
        std::string note(trim(cond).substr(0, 80));
        std::replace(note.begin(), note.end(), '\n', ' ');
        m_regions.push_back({begin, end, g, std::move(note)});
    }

    // if COND; then BODY [elif ...] [else ...] fi: BODY when COND holds, the rest when it does not.
    void if_branches(TSNode node) {
        const uint32_t n = ts_node_child_count(node);
        std::size_t cond_begin = 0, cond_end = 0, body_begin = 0, rest_begin = 0;
        bool in_condition = false, have_then = false;
        for (uint32_t i = 0; i < n; ++i) {
            TSNode c = ts_node_child(node, i);
            const std::string_view type = ts_node_type(c);
            if (!ts_node_is_named(c)) {
                if (type == "if" || type == "elif") {
                    in_condition = true;
                    cond_begin = ts_node_end_byte(c);
                } else if (type == "then") {
                    in_condition = false;
                    have_then = true;
                    body_begin = ts_node_end_byte(c);
                } else if (type == "fi" && have_then && !rest_begin) {
                    rest_begin = ts_node_start_byte(c);
                }
                continue;
            }
            if (in_condition) cond_end = ts_node_end_byte(c);
            if ((type == "elif_clause" || type == "else_clause") && have_then && !rest_begin) rest_begin = ts_node_start_byte(c);
        }
        if (!have_then || cond_end <= cond_begin) return;
        const std::string_view cond = span(cond_begin, cond_end);
        const Test t = classify(cond, m_v);
        if (t == Test::none) return;
        probe(cond_begin, cond_end, t, cond);
        const std::size_t body_end = rest_begin ? rest_begin : ts_node_end_byte(node);
        add(body_begin, body_end, t, true, cond);
        // the elif and else clauses of an `if`: up to its `fi` (an elif_clause has no rest of its own)
        if (std::string_view(ts_node_type(node)) == "if_statement" && rest_begin) add(rest_begin, ts_node_end_byte(node), t, false, cond);
    }

    // case WORD in PATTERN) BODY ;; ... esac, on the platform or on the CUDA version of a build.
    void case_arms(TSNode node) {
        TSNode value = ts_node_child_by_field_name(node, "value", 5);
        if (ts_node_is_null(value)) return;
        const std::string_view word = text(value);
        const bool platform = has_any(word, m_v.shell_platform_probes);
        const bool cuda_version = !platform && has_any(word, m_v.shell_cuda_version_variables);
        if (!platform && !cuda_version) return;
        std::vector<std::pair<TSNode, std::string>> arms;  // the arm and its patterns, as written
        bool has_cpu_arm = false;
        const uint32_t n = ts_node_named_child_count(node);
        for (uint32_t i = 0; i < n; ++i) {
            TSNode item = ts_node_named_child(node, i);
            if (std::string_view(ts_node_type(item)) != "case_item") continue;
            std::string patterns;
            const uint32_t m = ts_node_child_count(item);
            for (uint32_t j = 0; j < m; ++j) {
                TSNode c = ts_node_child(item, j);
                if (std::string_view(ts_node_type(c)) == ")") break;
                const char* field = ts_node_field_name_for_child(item, j);
                if (field && std::string_view(field) == "value") patterns += std::string(text(c)) + "|";
            }
            has_cpu_arm = has_cpu_arm || has_any(patterns, m_v.shell_cpu_strings);
            arms.emplace_back(item, std::move(patterns));
        }
        const std::string cond = "case " + std::string(word);
        for (const auto& [item, patterns] : arms) {
            if (patterns == "*|" || patterns.empty()) continue;  // the default arm: whatever else comes, a Mac too
            if (platform) {
                if (has_any(patterns, m_v.mac_strings)) continue;
                add(ts_node_start_byte(item), ts_node_end_byte(item), Test::not_mac, true, cond + " " + patterns.substr(0, patterns.size() - 1) + ")");
            } else if (has_cpu_arm && !has_any(patterns, m_v.shell_cpu_strings)) {
                add(ts_node_start_byte(item), ts_node_end_byte(item), Test::cuda, true, cond + " " + patterns.substr(0, patterns.size() - 1) + ")");
            }
        }
    }

    // A && B: B runs when A holds; A || B: when it does not.
    void list_sides(TSNode node) {
        if (ts_node_child_count(node) != 3) return;
        TSNode left = ts_node_child(node, 0), op = ts_node_child(node, 1), right = ts_node_child(node, 2);
        const std::string_view o = ts_node_type(op);
        if (o != "&&" && o != "||") return;
        const std::string_view cond = text(left);
        const Test t = classify(cond, m_v);
        probe(ts_node_start_byte(left), ts_node_end_byte(left), t, cond);
        add(ts_node_start_byte(right), ts_node_end_byte(right), t, o == "&&", cond);
    }

    // The probe itself (`command -v nvcc`, `nvidia-smi >/dev/null`) only fails on a Mac: that is its
    // answer, and the branch beside it runs.
    void probe(std::size_t begin, std::size_t end, Test t, std::string_view cond) {
        if (t == Test::cuda || t == Test::no_cuda) add(begin, end, Test::cuda, true, cond);
    }

    const std::string& m_text;
    const GuardVocabulary& m_v;
    std::vector<GuardedRegion> m_regions;
};

}  // namespace

std::vector<GuardedRegion> shell_guarded_regions(const std::string& text, const GuardVocabulary& vocabulary) {
    std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), ts_parser_delete);
    if (!ts_parser_set_language(parser.get(), tree_sitter_bash())) return {};
    std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree(
        ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())), ts_tree_delete);
    if (!tree) return {};
    Finder finder(text, vocabulary);
    finder.visit(ts_tree_root_node(tree.get()));
    return finder.take();
}

void guard_shell_matches(const std::string& text, const GuardVocabulary& vocabulary, std::vector<Match>& matches) {
    if (matches.empty()) return;
    const std::vector<GuardedRegion> regions = shell_guarded_regions(text, vocabulary);
    for (Match& m : matches) {
        if (m.guard != GuardKind::none) continue;
        // where the match's text starts: a line pattern may take the line's indentation with it
        std::size_t at = m.begin;
        while (at + 1 < m.end && at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
        const GuardedRegion* inner = nullptr;
        for (const auto& r : regions)
            if (at >= r.begin && at < r.end && (!inner || r.end - r.begin < inner->end - inner->begin)) inner = &r;
        if (!inner) continue;
        m.guard = inner->guard;
        m.guard_note = inner->note;
    }
}

}  // namespace mpsport::lines
