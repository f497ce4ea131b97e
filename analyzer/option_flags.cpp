// Options that a command turns on. A finding under `if args.benchmark:`, where the file declares
// `add_argument("--benchmark", action="store_true")`, is behind an option that is off by default
// (python/guards.cpp off_by_default): the default run never takes it. Unless the repository's own
// commands turn it on: a README, shell or Slurm script, Makefile, Dockerfile, notebook or config that
// writes `--benchmark` as a word runs that branch as documented, and the finding keeps its rule's
// weight. The same goes for a setup script's own switch around its extensions (`if '--cuda_ext' in
// sys.argv:`): whether the documented install passes it decides whether the extension is built.
// The files are read again here, only when some finding or extension has such an option.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "analyzer/program/program_model.hpp"
#include "analyzer/python/guards.hpp"
#include "analyzer/python/python_engine.hpp"
#include "analyzer/scanner.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"
#include "core/trigger_set.hpp"

namespace fs = std::filesystem;

namespace mpsport {
namespace {

using Where = std::pair<std::string, int>;

struct FlagUses {
    std::map<std::string, Where> passed;           // flag -> the first command that writes it as a word
    std::map<std::string, Where> install_without;  // flag -> the first install command that does not
};

// Whether a line installs the project from its checkout: `python setup.py develop|install|build_ext`,
// `pip install .`, `pip install -e .`, `pip install -v -e ".[dev]"`.
bool installs_checkout(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) {
        w.erase(std::remove(w.begin(), w.end(), '"'), w.end());
        w.erase(std::remove(w.begin(), w.end(), '\''), w.end());
        words.push_back(std::move(w));
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i].size() >= 8 && words[i].compare(words[i].size() - 8, 8, "setup.py") == 0)
            for (std::size_t j = i + 1; j < words.size(); ++j)
                if (words[j] == "develop" || words[j] == "install" || words[j] == "build_ext" || words[j] == "bdist_wheel") return true;
        if ((words[i] == "pip" || words[i] == "pip3") && i + 1 < words.size() && words[i + 1] == "install")
            for (std::size_t j = i + 2; j < words.size(); ++j)
                if (words[j] == "." || words[j] == "./" || words[j] == "-e." || words[j].rfind(".[", 0) == 0) return true;
    }
    return false;
}

// Where the repository's commands and documents write each of `flags` as a word; with `installs`,
// also the first command installing the checkout that does not write it.
FlagUses find_flags(const fs::path& base, const std::vector<program::FileRecord>& records, const std::vector<std::string>& flags, bool installs) {
    FlagUses out;
    if (flags.empty()) return out;
    std::vector<const program::FileRecord*> commands;
    for (const auto& r : records)
        if (r.kind == FileKind::shell || r.kind == FileKind::makefile || r.kind == FileKind::markdown || r.kind == FileKind::dockerfile ||
            r.kind == FileKind::notebook || r.kind == FileKind::config)
            commands.push_back(&r);
    const TriggerSet words(flags);
    std::vector<std::map<std::uint32_t, int>> passed(commands.size());   // per file: flag -> the line of its first use
    std::vector<std::map<std::uint32_t, int>> without(commands.size());  // per file: flag -> an install line without it
    parallel_for(commands.size(), [&](std::size_t i) {
        std::string text;
        try {
            text = read_file(base / commands[i]->path);
        } catch (const std::exception&) {
            return;  // unreadable now: it turns nothing on that we can show
        }
        std::set<std::pair<int, std::uint32_t>> lines_with;  // which line passes which flag
        for (const auto& [at, k] : words.find_each(text)) {
            const std::size_t end = at + flags[k].size();
            // `--amp` is not `--amp_level`; `--amp=1` and `--amp 1` are; `-t` is not the end of `--no-t`
            if (flags[k].back() != '=' && end < text.size() && (is_word_char(text[end]) || text[end] == '-')) continue;
            // `USE_JIT=1` sets an environment switch; `USE_JIT=0` leaves it off
            if (flags[k].back() == '=' && (end >= text.size() || text[end] == '0' || text.compare(end, 5, "False") == 0 ||
                                           text.compare(end, 5, "false") == 0 || std::isspace(static_cast<unsigned char>(text[end]))))
                continue;
            if (at > 0 && (is_word_char(text[at - 1]) || text[at - 1] == '-')) continue;
            const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
            passed[i].emplace(k, line);
            lines_with.emplace(line, k);
        }
        if (!installs) return;
        std::istringstream in(text);
        int number = 0;
        for (std::string line; std::getline(in, line);) {
            ++number;
            if (!installs_checkout(line)) continue;
            for (std::uint32_t k = 0; k < flags.size(); ++k)
                if (!lines_with.count({number, k})) without[i].emplace(k, number);
        }
    });
    for (std::size_t i = 0; i < commands.size(); ++i) {
        for (const auto& [k, line] : passed[i]) out.passed.emplace(flags[k], Where(commands[i]->path, line));
        for (const auto& [k, line] : without[i]) out.install_without.emplace(flags[k], Where(commands[i]->path, line));
    }
    return out;
}

// The word a command writes to turn on what an off-by-default guard note names: an argparse option
// (`off by default: --benchmark`), an environment switch (`off by default: $USE_JIT`, set as
// `USE_JIT=1`), or a parameter's default (`off by default: use_flex_attn=False`), which a script
// takes from the command-line option of the same name (Infinity's scripts/train.sh passes
// `--use_flex_attn=True`). The note may say it of the callers first ("every call of FlexAttn() is
// guarded; ...: off by default: use_flex_attn=False").
std::string commanded_flag(const std::string& guard_note) {
    static const std::string kPrefix = "off by default: ";
    const std::string_view option = split_option_note(guard_note).first;
    const std::size_t at = option.rfind(kPrefix);
    if (at == std::string_view::npos || option.size() < at + kPrefix.size() + 2) return {};
    const std::string rest(option.substr(at + kPrefix.size()));
    if (rest[0] == '-') return rest;
    if (rest[0] == '$') return rest.substr(1) + "=";
    const std::size_t eq = rest.find('=');
    if (eq == std::string::npos || eq == 0) return {};
    const std::string name = rest.substr(0, eq), value = rest.substr(eq + 1);
    if (!std::all_of(name.begin(), name.end(), is_word_char) || (value != "False" && value != "None" && value != "0")) return {};
    return "--" + name;
}

}  // namespace

void Scanner::keep_options_commands_turn_on(const fs::path& base, const std::vector<program::FileRecord>& records,
                                            std::vector<Finding>& findings) const {
    auto flag_of = [](const Finding& f) { return f.guard == GuardKind::off_by_default ? commanded_flag(f.guard_note) : std::string(); };
    std::vector<std::string> flags;
    for (const auto& f : findings)
        if (const std::string flag = flag_of(f); !flag.empty() && std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
    const FlagUses uses = find_flags(base, records, flags, false);
    for (auto& f : findings) {
        const std::string flag = flag_of(f);
        if (flag.empty()) continue;
        const auto on = uses.passed.find(flag);
        if (on == uses.passed.end()) continue;
        std::tie(f.guard, f.guard_note) = guard_once_turned_on(f.guard_note);
        f.related.push_back(related_line(on->second.first, on->second.second, "passes " + on->first + ", which turns this branch on"));
    }
}

void Scanner::weigh_options_declared_elsewhere(const fs::path& base, const std::vector<program::FileRecord>& records, unsigned jobs,
                                               std::vector<Finding>& findings) const {
    // The unguarded findings above info in Python files, by file.
    std::set<std::string, std::less<>> python_paths;
    for (const auto& r : records)
        if (r.kind == FileKind::python) python_paths.insert(r.path);
    std::map<std::string, std::vector<std::size_t>, std::less<>> wanted;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        if (f.guard == GuardKind::none && f.severity != Severity::info && f.source == "static" && python_paths.count(f.location.path))
            wanted[f.location.path].push_back(i);
    }
    if (wanted.empty()) return;
    // The options the repository's scripts declare: only files that write `add_argument` are parsed.
    // Each file is read once: the texts of those with findings are kept for the second parse.
    const std::vector<std::string> paths(python_paths.begin(), python_paths.end());
    std::vector<std::vector<python::ArgparseDeclaration>> declared(paths.size());
    std::vector<std::string> kept(paths.size());
    build_engines();
    parallel_for(paths.size(), [&](std::size_t i) {
        try {
            std::string text = read_file(base / paths[i]);
            if (text.find("add_argument") != std::string::npos) declared[i] = m_python->argparse_declarations(text);
            if (wanted.count(paths[i])) kept[i] = std::move(text);
        } catch (const std::exception&) {
            // gone since it was read: its declarations and findings are left as they are
        }
    }, jobs);
    std::map<std::string, std::pair<std::string, Where>, std::less<>> off;  // destination -> flag, the first declaration
    std::set<std::string> on;  // some declaration turns it on by default: not off, whatever others say
    for (std::size_t i = 0; i < paths.size(); ++i)
        for (const auto& d : declared[i]) {
            if (d.off) off.emplace(d.option.dest, std::make_pair(d.option.flag, Where{paths[i], d.line}));
            else on.insert(d.option.dest);
        }
    for (const auto& d : on) off.erase(d);
    if (off.empty()) return;
    std::map<std::string, std::string, std::less<>> flags;  // destination -> flag
    std::map<std::string, Where> declared_at;               // flag -> its declaration
    std::vector<std::string> reads;  // `opt.X` for each options object and option: what a test of one writes
    for (const auto& [dest, declaration] : off) {
        flags.emplace(dest, declaration.first);
        declared_at.emplace(declaration.first, declaration.second);
        for (const auto& object : m_catalogue.program().guards.argparse_objects) reads.push_back(object + "." + dest);
    }
    // Only the files that test one of them, on a line of `if`, `elif` or a conditional expression
    // at or above a finding, are parsed again (Megatron-LM declares some 700 options; most of its
    // files read a few of them somewhere).
    const TriggerSet read_any(reads);
    std::vector<std::vector<std::optional<std::string>>> found(paths.size());
    parallel_for(paths.size(), [&](std::size_t i) {
        const std::string& text = kept[i];
        if (text.empty()) return;
        const auto& at_findings = wanted.find(paths[i])->second;
        int last = 0;
        for (std::size_t k : at_findings) last = std::max(last, findings[k].location.line);
        int first_test = 0;  // the line of the first test of such an option, 0 for none
        for (const auto& [at, index] : read_any.find_each(text)) {
            const std::string& read = read_any.literals()[index];
            if ((at > 0 && is_word_char(text[at - 1])) || (at + read.size() < text.size() && is_word_char(text[at + read.size()]))) continue;
            const std::size_t newline = text.rfind('\n', at);
            const std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
            const std::string_view line = std::string_view(text).substr(begin, at - begin);
            const std::size_t indent = line.find_first_not_of(" \t");
            if (indent == std::string_view::npos) continue;
            if (line.compare(indent, 3, "if ") != 0 && line.compare(indent, 5, "elif ") != 0 && line.find(" if ") == std::string_view::npos) continue;
            first_test = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
            break;
        }
        if (first_test == 0 || first_test > last) return;  // on the finding's own line: `x.cuda() if opt.X else x`
        std::vector<std::pair<int, int>> at;
        for (std::size_t k : at_findings) at.emplace_back(findings[k].location.line, findings[k].location.col);
        found[i] = m_python->options_off_elsewhere(text, at, flags);
    }, jobs);
    for (std::size_t i = 0; i < paths.size(); ++i)
        for (std::size_t k = 0; k < found[i].size(); ++k) {
            if (!found[i][k]) continue;
            // only an option the other files declare: the file's own would have guarded the finding already
            const std::string flag = commanded_flag(*found[i][k]);
            const auto declaration = declared_at.find(flag);
            if (declaration == declared_at.end()) continue;
            Finding& f = findings[wanted.find(paths[i])->second[k]];
            f.guard = GuardKind::off_by_default;
            f.guard_note = std::move(*found[i][k]);
            f.related.push_back(related_line(declaration->second.first, declaration->second.second, "declares " + flag + ", off by default"));
        }
}

void Scanner::options_commands_pass(const fs::path& base, const std::vector<program::FileRecord>& records, program::ModelOptions& out) const {
    std::vector<std::string> flags;        // build switches, then import options, each once
    std::vector<std::string> build_flags;  // the first of them
    std::map<std::string, std::string> import_options;  // guard note -> its flag as a command writes it
    auto add = [&](const std::string& flag) {
        if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
    };
    for (const auto& r : records) {
        if (!r.facts) continue;
        for (const auto& e : r.facts->extensions)
            if (!e.build_flag.empty() && std::find(build_flags.begin(), build_flags.end(), e.build_flag) == build_flags.end())
                build_flags.push_back(e.build_flag), add(e.build_flag);
        for (const auto& i : r.facts->imports)
            if (i.guard == GuardKind::off_by_default && !import_options.count(i.guard_note))
                if (const std::string flag = commanded_flag(i.guard_note); !flag.empty()) import_options[i.guard_note] = flag, add(flag);
    }
    const FlagUses uses = find_flags(base, records, flags, !build_flags.empty());
    for (const auto& flag : build_flags) {
        program::BuildFlagUse& u = out.build_flags[flag];
        if (auto it = uses.passed.find(flag); it != uses.passed.end()) u.passed = it->second;
        if (auto it = uses.install_without.find(flag); it != uses.install_without.end()) u.install_without = it->second;
    }
    for (const auto& [note, flag] : import_options)
        if (uses.passed.count(flag)) out.options_turned_on.insert(note);
}

}  // namespace mpsport
