// Options that a command turns on. A finding under `if args.benchmark:`, where the file declares
// `add_argument("--benchmark", action="store_true")`, is behind an option that is off by default
// (python/guards.cpp off_by_default): the default run never takes it. Unless the repository's own
// commands turn it on: a README, shell or Slurm script, Makefile, Dockerfile, notebook or config that
// writes `--benchmark` as a word runs that branch as documented, and the finding keeps its rule's
// weight. The files are read again here, only when some finding has such a guard.
#include <algorithm>
#include <map>

#include "analyzer/program/program_model.hpp"
#include "analyzer/scanner.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/source_text.hpp"
#include "core/trigger_set.hpp"

namespace fs = std::filesystem;

namespace mpsport {

void Scanner::keep_options_commands_turn_on(const fs::path& base, const std::vector<program::FileRecord>& records,
                                            std::vector<Finding>& findings) const {
    static const std::string kPrefix = "off by default: -";  // an argparse option, not a parameter's default
    std::vector<std::string> flags;
    for (const auto& f : findings)
        if (f.guard == GuardKind::off_by_default && f.guard_note.rfind(kPrefix, 0) == 0) {
            const std::string flag = f.guard_note.substr(kPrefix.size() - 1);
            if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
        }
    if (flags.empty()) return;
    std::vector<const program::FileRecord*> commands;
    for (const auto& r : records)
        if (r.kind == FileKind::shell || r.kind == FileKind::makefile || r.kind == FileKind::markdown || r.kind == FileKind::dockerfile ||
            r.kind == FileKind::notebook || r.kind == FileKind::config)
            commands.push_back(&r);
    const TriggerSet words(flags);
    std::vector<std::map<std::uint32_t, int>> passed(commands.size());  // per file: flag -> the line of its first use
    parallel_for(commands.size(), [&](std::size_t i) {
        std::string text;
        try {
            text = read_file(base / commands[i]->path);
        } catch (const std::exception&) {
            return;  // unreadable now: it turns nothing on that we can show
        }
        for (const auto& [at, k] : words.find_each(text)) {
            const std::size_t end = at + flags[k].size();
            // `--amp` is not `--amp_level`; `--amp=1` and `--amp 1` are; `-t` is not the end of `--no-t`
            if (end < text.size() && (is_word_char(text[end]) || text[end] == '-')) continue;
            if (at > 0 && (is_word_char(text[at - 1]) || text[at - 1] == '-')) continue;
            passed[i].emplace(k, 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')));
        }
    });
    std::map<std::string, std::pair<std::string, int>> turned_on;  // flag -> a file that passes it, and where
    for (std::size_t i = 0; i < commands.size(); ++i)
        for (const auto& [k, line] : passed[i]) turned_on.emplace(flags[k], std::make_pair(commands[i]->path, line));
    for (auto& f : findings) {
        if (f.guard != GuardKind::off_by_default || f.guard_note.rfind(kPrefix, 0) != 0) continue;
        const auto on = turned_on.find(f.guard_note.substr(kPrefix.size() - 1));
        if (on == turned_on.end()) continue;
        f.guard = GuardKind::none;
        f.guard_note.clear();
        f.related.push_back(related_line(on->second.first, on->second.second, "passes " + on->first + ", which turns this branch on"));
    }
}

}  // namespace mpsport
