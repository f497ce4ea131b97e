#include "analyzer/python/regions.hpp"

#include "core/source_text.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

namespace mpsport::python {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.compare(0, p.size(), p) == 0; }

bool continues_previous(std::string_view line) {
    for (std::string_view kw : {"else", "elif", "except", "finally"})
        if (starts_with(line, kw) && (line.size() == kw.size() || line[kw.size()] == ':' || line[kw.size()] == ' ' || line[kw.size()] == '('))
            return true;
    return false;
}


// Below this size a file is parsed whole: choosing regions would cost more than it saves.
constexpr std::size_t kRegionMinBytes = 8192;
// When the chosen regions cover more than this share of a file, it is parsed whole.
constexpr double kRegionMaxShare = 0.7;

TSPoint point_at(std::string_view text, std::size_t offset, const std::vector<Chunk>& chunks, std::size_t next_chunk) {
    if (next_chunk < chunks.size()) return {chunks[next_chunk].row, 0};
    uint32_t row = 0;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') ++row, line_start = i + 1;
    return {row, static_cast<uint32_t>(offset - line_start)};
}

// Rounds of callers that follow_definitions adds: one more than the depth to which a guard is
// looked for through a file's own callers (python::guard_through_callers).
constexpr int kFollowRounds = 5;

// The names that `def NAME` and `class NAME` bind anywhere in a statement, nested ones too (a line's
// first words; a docstring's "def" line only adds a name, which keeps more, never less).
std::vector<std::string_view> defined_names(std::string_view chunk) {
    std::vector<std::string_view> out;
    for (std::size_t pos = 0; pos < chunk.size();) {
        std::size_t eol = chunk.find('\n', pos);
        if (eol == std::string_view::npos) eol = chunk.size();
        std::string_view line = chunk.substr(pos, eol - pos);
        line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));  // npos: all of it
        if (starts_with(line, "async ")) line.remove_prefix(6);
        for (std::string_view kw : {"def ", "class "}) {
            if (!starts_with(line, kw)) continue;
            std::size_t b = kw.size();
            while (b < line.size() && line[b] == ' ') ++b;
            std::size_t e = b;
            while (e < line.size() && is_word_char(line[e])) ++e;
            if (e > b) out.push_back(line.substr(b, e - b));
        }
        pos = eol + 1;
    }
    return out;
}

// The name a statement `NAME = ...` binds (`device='cuda'`, spaces or none around the `=`); empty
// for any other statement (`NAME == x`, `a.b = x`, `a, b = x`).
std::string_view assigned_name(std::string_view chunk) {
    std::size_t e = 0;
    while (e < chunk.size() && is_word_char(chunk[e])) ++e;
    std::size_t eq = e;
    while (eq < chunk.size() && (chunk[eq] == ' ' || chunk[eq] == '\t')) ++eq;
    if (e < 2 || eq >= chunk.size() || chunk[eq] != '=' || (eq + 1 < chunk.size() && chunk[eq + 1] == '=')) return {};
    return chunk.substr(0, e);
}

}  // namespace

std::vector<std::pair<std::size_t, std::uint32_t>> word_hits(std::string_view text, const std::vector<std::string>& words) {
    std::vector<std::pair<std::size_t, std::uint32_t>> hits;
    for (std::uint32_t w = 0; w < words.size(); ++w) {
        const std::string& word = words[w];
        if (word.empty()) continue;
        for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + word.size()))
            if ((at == 0 || !is_word_char(text[at - 1])) && (at + word.size() >= text.size() || !is_word_char(text[at + word.size()])))
                hits.emplace_back(at, w);
    }
    std::sort(hits.begin(), hits.end());
    return hits;
}

std::vector<Chunk> top_level_chunks(std::string_view text) { return block_chunks(text, 0, text.size(), 0, 0); }

std::size_t body_indent(std::string_view text, const Chunk& chunk) {
    std::size_t pos = text.find('\n', chunk.begin);
    while (pos != std::string_view::npos && pos + 1 < chunk.end) {
        const std::size_t line = pos + 1;
        std::size_t i = line;
        while (i < chunk.end && text[i] == ' ') ++i;
        if (i < chunk.end && text[i] != '\n' && text[i] != '#' && text[i] != '\r') return i - line;
        pos = text.find('\n', line);
    }
    return 0;
}

std::vector<Chunk> block_chunks(std::string_view text, std::size_t begin, std::size_t end, unsigned first_row, std::size_t indent) {
    std::vector<Chunk> chunks;
    char triple = 0;      // the quote of an open triple-quoted string
    int depth = 0;        // open brackets
    bool continued = false;  // previous line ended with a backslash
    bool decorator_pending = false;
    unsigned row = first_row;
    std::size_t pos = begin;
    while (pos < end) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos || eol > end) eol = end;
        const std::string_view full_line = text.substr(pos, eol - pos);
        const bool indented_enough = full_line.size() > indent && full_line.find_first_not_of(' ') == indent;
        const std::string_view line = indented_enough ? full_line.substr(indent) : std::string_view();
        const bool statement_start = triple == 0 && depth == 0 && !continued && indented_enough && line[0] != ' ' &&
                                     line[0] != '\t' && line[0] != '#' && line[0] != '\r';
        if (statement_start) {
            if (chunks.empty() || !(continues_previous(line) || decorator_pending)) {
                Chunk c;
                c.begin = pos;
                c.row = row;
                c.is_import = starts_with(line, "import ") || starts_with(line, "from ") || starts_with(line, "try:");
                chunks.push_back(c);
            }
            decorator_pending = line[0] == '@';
        }
        // Scan the line for strings, comments, brackets.
        continued = false;
        const std::string_view line_text = full_line;
        for (std::size_t i = 0; i < line_text.size(); ++i) {
            const char ch = line_text[i];
            if (triple) {
                if (ch == '\\') ++i;
                else if (ch == triple && line_text.compare(i, 3, std::string(3, triple)) == 0) {
                    triple = 0;
                    i += 2;
                }
                continue;
            }
            if (ch == '#') break;
            if (ch == '"' || ch == '\'') {
                if (line_text.compare(i, 3, std::string(3, ch)) == 0) {
                    triple = ch;
                    i += 2;
                    continue;
                }
                for (++i; i < line_text.size() && line_text[i] != ch; ++i)
                    if (line_text[i] == '\\') ++i;
                continue;
            }
            if (ch == '(' || ch == '[' || ch == '{') ++depth;
            else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) --depth;
            else if (ch == '\\' && i + 1 == line_text.size()) continued = true;
            else if (ch == '\\' && i + 2 == line_text.size() && line_text[i + 1] == '\r') continued = true;
        }
        if (!chunks.empty()) chunks.back().end = eol < end ? eol + 1 : eol;
        pos = eol + 1;
        ++row;
    }
    return chunks;
}

// The statements holding a trigger hit, plus the imports, as tree-sitter ranges; empty when the whole
// file should be parsed. Large classes are split into their members, so one method that calls
// `.cuda()` does not pull in the rest of the class (its header always comes along).
std::vector<TSRange> regions_to_parse(std::string_view text, const std::vector<std::pair<std::size_t, std::uint32_t>>& hits, bool follow_definitions) {
    if (text.size() < kRegionMinBytes) return {};
    constexpr std::size_t kSplitClassBytes = 2048;
    std::vector<Chunk> units;
    std::vector<std::ptrdiff_t> header_of;  // for a class member: the index of its class header unit
    for (const Chunk& c : top_level_chunks(text)) {
        const std::string_view first = text.substr(c.begin, std::min<std::size_t>(6, c.end - c.begin));
        const std::size_t indent = first == "class " && c.end - c.begin > kSplitClassBytes ? body_indent(text, c) : 0;
        std::vector<Chunk> members = indent ? block_chunks(text, c.begin, c.end, c.row, indent) : std::vector<Chunk>{};
        if (members.empty()) {
            units.push_back(c);
            header_of.push_back(-1);
            continue;
        }
        const std::ptrdiff_t header = static_cast<std::ptrdiff_t>(units.size());
        units.push_back({c.begin, members.front().begin, c.row, false});
        header_of.push_back(-1);
        for (const Chunk& m : members) {
            units.push_back(m);
            header_of.push_back(header);
        }
    }
    std::vector<bool> keep(units.size(), false);
    auto unit_at = [&](std::size_t offset) -> std::ptrdiff_t {
        const auto it = std::upper_bound(units.begin(), units.end(), offset, [](std::size_t off, const Chunk& ch) { return off < ch.begin; });
        if (it == units.begin()) return -1;
        const std::size_t i = static_cast<std::size_t>(it - units.begin()) - 1;
        return offset < units[i].end ? static_cast<std::ptrdiff_t>(i) : -1;
    };
    for (const auto& hit : hits)
        if (const auto u = unit_at(hit.first); u >= 0) keep[static_cast<std::size_t>(u)] = true;

    // The callers of what the kept statements define, and theirs, as deep as a guard is looked for
    // through callers: the statements that write the name of a function or class defined in a kept
    // one (or of the class a kept member belongs to).
    if (follow_definitions) {
        std::set<std::string, std::less<>> followed;
        std::vector<bool> named(units.size(), false);
        for (int round = 0; round < kFollowRounds; ++round) {
            std::vector<std::string> fresh;
            for (std::size_t i = 0; i < units.size(); ++i) {
                if (!keep[i] || named[i]) continue;
                named[i] = true;
                std::vector<std::size_t> from{i};
                if (header_of[i] >= 0) from.push_back(static_cast<std::size_t>(header_of[i]));
                for (std::size_t k : from)
                    for (std::string_view name : defined_names(text.substr(units[k].begin, units[k].end - units[k].begin)))
                        if (followed.insert(std::string(name)).second) fresh.emplace_back(name);
            }
            if (fresh.empty()) break;
            for (const auto& [at, ignored] : word_hits(text, fresh))
                if (const auto u = unit_at(at); u >= 0) keep[static_cast<std::size_t>(u)] = true;
        }
    }

    // And the other way: a module-level `NAME = ...` that a kept statement uses is kept too, since a
    // finding can sit at the constant (`NVCC_FLAGS = [...]` used in `CUDAExtension(...)`; found by
    // the regions-versus-whole-file test).
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (keep[i]) continue;
        const std::string_view name = assigned_name(text.substr(units[i].begin, units[i].end - units[i].begin));
        if (name.empty()) continue;
        for (std::size_t k = 0; k < units.size() && !keep[i]; ++k) {
            if (!keep[k] || k == i) continue;
            keep[i] = contains_word(text.substr(units[k].begin, units[k].end - units[k].begin), name);
        }
    }

    // Names bound in kept statements reach the rest of the file: `... import DistributedDataParallel as DDP`
    // makes `DDP(model)` a use; `DEVICE = "cuda"` at the top makes `model.to(DEVICE)` one. Not when
    // following definitions: the calls asked about are found by their own names, and the rest of
    // the file using an alias that a kept function binds (flash-attention's `cute`) would be most of it.
    std::vector<std::string> names;
    for (std::size_t i = 0; i < units.size() && !follow_definitions; ++i) {
        if (!keep[i]) continue;
        const std::string_view chunk = text.substr(units[i].begin, units[i].end - units[i].begin);
        for (std::size_t at = chunk.find(" as "); at != std::string_view::npos; at = chunk.find(" as ", at + 4)) {
            std::size_t b = at + 4, e = b;
            while (e < chunk.size() && is_word_char(chunk[e])) ++e;
            if (e - b >= 2) names.emplace_back(chunk.substr(b, e - b));
        }
        if (const std::string_view name = assigned_name(chunk); !name.empty()) names.emplace_back(name);
        // `from torch.cuda.amp import autocast, GradScaler`: the imported names themselves
        if (chunk.compare(0, 5, "from ") == 0) {
            const std::size_t imp = chunk.find(" import ");
            if (imp != std::string_view::npos) {
                const std::size_t stop = chunk.find('\n', imp);
                const std::string_view list = chunk.substr(imp + 8, (stop == std::string_view::npos ? chunk.size() : stop) - imp - 8);
                for (std::size_t b = 0; b < list.size();) {
                    while (b < list.size() && !is_word_char(list[b])) ++b;
                    std::size_t w = b;
                    while (w < list.size() && is_word_char(list[w])) ++w;
                    if (w - b >= 2 && list.substr(b, w - b) != "as") names.emplace_back(list.substr(b, w - b));
                    b = w;
                }
            }
        }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& [at, ignored] : word_hits(text, names))
        if (const auto u = unit_at(at); u >= 0) keep[static_cast<std::size_t>(u)] = true;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (units[i].is_import) keep[i] = true;
        if (keep[i] && header_of[i] >= 0) keep[static_cast<std::size_t>(header_of[i])] = true;
    }

    std::vector<TSRange> ranges;
    std::size_t covered = 0;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (!keep[i]) continue;
        covered += units[i].end - units[i].begin;
        const TSPoint end_point = point_at(text, units[i].end, units, i + 1);
        if (!ranges.empty() && ranges.back().end_byte == units[i].begin) {
            ranges.back().end_byte = static_cast<uint32_t>(units[i].end);
            ranges.back().end_point = end_point;
            continue;
        }
        ranges.push_back({{units[i].row, 0}, end_point, static_cast<uint32_t>(units[i].begin), static_cast<uint32_t>(units[i].end)});
    }
    if (ranges.empty() || static_cast<double>(covered) > kRegionMaxShare * static_cast<double>(text.size())) return {};
    return ranges;
}

}  // namespace mpsport::python
