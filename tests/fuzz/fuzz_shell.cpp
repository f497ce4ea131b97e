// libFuzzer target: a shell or Slurm script through tree-sitter-bash and the guard finder, with the
// bundled vocabulary. Every region must lie inside the script, and guarding a match at each byte
// must not fail.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analyzer/lines/shell_guards.hpp"
#include "core/rule_catalogue.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const mpsport::RuleCatalogue catalogue = mpsport::RuleCatalogue::load(mpsport::locate_rules_dir({}));
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto& vocabulary = catalogue.program().guards;
    for (const auto& r : mpsport::lines::shell_guarded_regions(text, vocabulary))
        if (r.begin > r.end || r.end > text.size()) std::abort();
    std::vector<mpsport::Match> matches(1);
    matches[0].begin = size / 2;
    matches[0].end = size;
    mpsport::lines::guard_shell_matches(text, vocabulary, matches);
    return 0;
}
