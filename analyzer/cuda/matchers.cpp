// Rules as data: clang-query matcher text from the rule YAML, parsed by Clang's dynamic matcher
// parser (the one clang-query and clang-tidy's query checks use).
#include <clang/ASTMatchers/Dynamic/Diagnostics.h>
#include <clang/ASTMatchers/Dynamic/Parser.h>

#include <algorithm>
#include <set>

#include "analyzer/cuda/clang_rules.hpp"
#include "analyzer/cuda/translation_unit.hpp"

namespace mpsport::cuda {

bool reads_kind(const Rule& rule, FileKind kind) {
    const std::string name = kind == FileKind::cuda ? "cuda" : "cpp";  // the only kinds clang rules name
    return std::find(rule.file_kinds.begin(), rule.file_kinds.end(), name) != rule.file_kinds.end();
}

std::shared_ptr<const ClangRules> compile_clang_rules(const std::vector<const Rule*>& rules) {
    auto compiled = std::make_shared<ClangRules>();
    std::map<std::string, std::vector<const Rule*>> by_check;
    for (const Rule* r : rules) {
        if (!r->check.empty()) {
            if (!registered_checks().count(r->check)) {
                std::string known;
                for (const auto& [name, factory] : registered_checks()) known += (known.empty() ? "" : ", ") + name;
                throw RuleError(r->source.generic_string() + ": clang.check '" + r->check + "' is not a check of this build (" + known + ")");
            }
            by_check[r->check].push_back(r);
            continue;
        }
        MatcherRule mr{r, {}};
        for (std::size_t i = 0; i < r->matchers.size(); ++i) {
            const std::string& text = r->matchers[i];
            const std::string where = r->source.generic_string() + ": clang.matchers[" + std::to_string(i) + "]";
            if (text.find(".bind(\"finding\")") == std::string::npos)
                throw RuleError(where + ": bind the node to report with .bind(\"finding\")");
            llvm::StringRef code(text);
            clang::ast_matchers::dynamic::Diagnostics diag;
            auto matcher = clang::ast_matchers::dynamic::Parser::parseMatcherExpression(code, &diag);
            if (!matcher) throw RuleError(where + ": " + diag.toStringFull());
            mr.matchers.push_back(*matcher);
        }
        compiled->matchers.push_back(std::move(mr));
    }
    for (auto& [name, list] : by_check) compiled->checks.push_back({registered_checks().at(name)(list), list});
    return compiled;
}

}  // namespace mpsport::cuda
