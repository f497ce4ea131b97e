#include "analyzer/python/grad_context.hpp"

#include <cctype>

namespace mpsport::python {
namespace {

constexpr int kMaxCallerDepth = 4;

std::string line_of(TSNode n) { return "line " + std::to_string(ts_node_start_point(n).row + 1); }

TSNode definition_of(TSNode n) { return is_type(ts_node_parent(n), "decorated_definition") ? ts_node_parent(n) : n; }

bool module_level(TSNode function) {
    TSNode p = ts_node_parent(definition_of(function));
    return !ts_node_is_null(p) && is_type(p, "module");
}

// A method of a class defined at module level (not in a function, not nested in a class).
bool module_level_class(TSNode function) {
    TSNode block = ts_node_parent(definition_of(function));
    if (ts_node_is_null(block) || !is_type(block, "block")) return false;
    TSNode cls = ts_node_parent(block);
    if (!is_type(cls, "class_definition")) return false;
    TSNode outer = ts_node_parent(cls);
    if (is_type(outer, "decorated_definition")) outer = ts_node_parent(outer);
    return !ts_node_is_null(outer) && is_type(outer, "module");
}

// A method is called through `self.` / `cls.`; a module-level or nested function by its name.
bool method(TSNode function) {
    TSNode block = ts_node_parent(definition_of(function));
    return !ts_node_is_null(block) && is_type(block, "block") && is_type(ts_node_parent(block), "class_definition");
}

// `if self.training:` (1), `if not self.training:` (-1), anything else (0).
int training_test(TSNode condition, const ModuleFacts& facts) {
    if (ts_node_is_null(condition)) return 0;
    if (facts.text(condition) == "self.training") return 1;
    if (is_type(condition, "not_operator") && facts.text(field(condition, "argument")) == "self.training") return -1;
    return 0;
}

bool ends_with_exit(TSNode block) {
    const uint32_t n = ts_node_named_child_count(block);
    if (n == 0) return false;
    TSNode last = ts_node_named_child(block, n - 1);
    return is_type(last, "return_statement") || is_type(last, "raise_statement");
}

GradContext decided(Grad g, std::string why) { return {g, std::move(why), {}}; }

}  // namespace

GradContextFinder::GradContextFinder(const GuardVocabulary& vocabulary, const ModuleFacts& facts, TSNode root)
    : m_vocab(vocabulary), m_facts(facts), m_root(root) {
    for_each_node(root, [&](TSNode n) {
        if (!m_file_trains.empty() || !is_type(n, "call")) return;
        TSNode fn = field(n, "function");
        if (is_type(fn, "attribute") && listed(m_vocab.training_methods, m_facts.text(field(fn, "attribute"))))
            m_file_trains = "calls ." + std::string(m_facts.text(field(fn, "attribute"))) + "() on " + line_of(n);
    });
}

bool GradContextFinder::no_grad_expression(TSNode expr) const {
    TSNode fn = is_type(expr, "call") ? field(expr, "function") : expr;
    const std::string q = m_facts.qualname(fn);
    if (listed(m_vocab.no_grad_contexts, q)) return true;
    if (q == "torch.set_grad_enabled" && is_type(expr, "call")) {
        TSNode arg = positional_argument(expr, 0);
        return !ts_node_is_null(arg) && m_facts.text(arg) == "False";
    }
    return false;
}

std::string GradContextFinder::named(TSNode definition) const {
    for (const auto& w : identifier_words(m_facts.text(field(definition, "name"))))
        if (listed(m_vocab.inference_words, w)) return "none";
    for (const auto& w : identifier_words(m_facts.text(field(definition, "name"))))
        if (listed(m_vocab.training_words, w)) return "training";
    return {};
}

// What the code around the call says, innermost first: a no-grad `with` or decorator, a branch on
// self.training, the name of the enclosing function or class, a training call in the same function.
GradContext GradContextFinder::local(TSNode node) const {
    TSNode function{};
    TSNode child = node;
    for (TSNode p = ts_node_parent(node); !ts_node_is_null(p); child = p, p = ts_node_parent(p)) {
        const std::string_view type = node_type(p);
        if (type == "with_statement") {
            GradContext found;
            for_each_node(p, [&](TSNode item) {
                if (found.grad == Grad::unknown && is_type(item, "with_item") && no_grad_expression(field(item, "value")))
                    found = decided(Grad::none, "under `with " + std::string(m_facts.text(field(item, "value"))) + ":` (" + line_of(p) + ")");
            });
            if (found.grad != Grad::unknown && contains(field(p, "body"), node)) return found;
        } else if (type == "if_statement") {
            const int test = training_test(field(p, "condition"), m_facts);
            const bool in_then = contains(field(p, "consequence"), node);
            if (test != 0) {
                const bool training = (test == 1) == in_then;
                return decided(training ? Grad::training : Grad::none,
                               std::string(training ? "on the self.training branch" : "on the branch where self.training is False") + " (" + line_of(p) + ")");
            }
        } else if (type == "block") {
            // `if self.training: ... return losses` before the call: the rest of the block is inference
            for (TSNode s = ts_node_prev_named_sibling(child); !ts_node_is_null(s); s = ts_node_prev_named_sibling(s)) {
                if (!is_type(s, "if_statement") || !ends_with_exit(field(s, "consequence"))) continue;
                if (const int test = training_test(field(s, "condition"), m_facts); test != 0)
                    return decided(test == 1 ? Grad::none : Grad::training,
                                   std::string(test == 1 ? "after `if self.training:` returned" : "after `if not self.training:` returned") + " (" + line_of(s) + ")");
            }
        } else if (type == "function_definition" || type == "class_definition") {
            if (type == "function_definition" && ts_node_is_null(function)) function = p;
            if (TSNode d = definition_of(p); is_type(d, "decorated_definition")) {
                for (uint32_t i = 0; i < ts_node_named_child_count(d); ++i) {
                    TSNode dec = ts_node_named_child(d, i);
                    if (is_type(dec, "decorator") && ts_node_named_child_count(dec) > 0 && no_grad_expression(ts_node_named_child(dec, 0)))
                        return decided(Grad::none, "under @" + std::string(m_facts.text(ts_node_named_child(dec, 0))) + " (" + line_of(dec) + ")");
                }
            }
            const std::string by_name = named(p);
            const std::string what = std::string(m_facts.text(field(p, "name"))) + (type == "function_definition" ? "()" : "");
            if (by_name == "none") return decided(Grad::none, "in " + what + ", an inference path by its name");
            if (by_name == "training") return decided(Grad::training, "in " + what);
        }
    }
    if (!ts_node_is_null(function)) {
        GradContext found;
        for_each_node(field(function, "body"), [&](TSNode n) {
            if (found.grad != Grad::unknown || !is_type(n, "call")) return;
            TSNode fn = field(n, "function");
            if (is_type(fn, "attribute") && listed(m_vocab.training_methods, m_facts.text(field(fn, "attribute"))))
                found = decided(Grad::training, "in " + std::string(m_facts.text(field(function, "name"))) + "(), which calls ." +
                                                    std::string(m_facts.text(field(fn, "attribute"))) + "() on " + line_of(n));
        });
        if (found.grad != Grad::unknown) return found;
    }
    return {};
}

GradContext GradContextFinder::of(TSNode node) const {
    std::set<std::string> visited;
    return of(node, 0, visited);
}

GradContext GradContextFinder::of(TSNode node, int depth, std::set<std::string>& visited) const {
    GradContext c = local(node);
    if (c.grad != Grad::unknown) return c;
    TSNode function = enclosing(node, {"function_definition"});
    if (!ts_node_is_null(function)) c = from_callers(function, depth, visited);
    if (c.grad == Grad::unknown && !m_file_trains.empty()) return decided(Grad::training, "in a file that " + m_file_trains);
    return c;
}

// The callers of `function` in this file decide: one that trains makes it train; if every one runs
// without gradients, so does it. Otherwise a module-level function is left to the files that import it.
GradContext GradContextFinder::from_callers(TSNode function, int depth, std::set<std::string>& visited) const {
    const std::string_view name = m_facts.text(field(function, "name"));
    const std::string key = std::string(name) + "@" + std::to_string(ts_node_start_byte(function));
    if (depth >= kMaxCallerDepth || !visited.insert(key).second) return {};
    const bool top = module_level(function);
    const bool by_self = method(function);
    std::vector<std::pair<TSNode, GradContext>> callers;
    for_each_node(m_root, [&](TSNode n) {
        if (!is_type(n, "call") || contains(function, n)) return;
        TSNode fn = field(n, "function");
        const bool direct = !by_self && is_type(fn, "identifier") && m_facts.text(fn) == name;
        const bool through_self = by_self && is_type(fn, "attribute") && m_facts.text(field(fn, "attribute")) == name &&
                                  (m_facts.text(field(fn, "object")) == "self" || m_facts.text(field(fn, "object")) == "cls");
        if (direct || through_self) callers.emplace_back(n, GradContext{});
    });
    GradContext out;
    std::size_t none = 0;
    for (auto& [call, ctx] : callers) {
        ctx = of(call, depth + 1, visited);
        if (ctx.grad == Grad::training) return decided(Grad::training, "called from " + line_of(call) + ", " + ctx.why);
        if (ctx.grad == Grad::none) ++none;
        for (const auto& f : ctx.frontier) out.frontier.push_back(f);
    }
    if (!callers.empty() && none == callers.size())
        return decided(Grad::none, "every call of " + std::string(name) + "() in this file runs without gradients (" + line_of(callers.front().first) + ": " +
                                       callers.front().second.why + ")");
    // A module-level function may be imported and called elsewhere too: those calls decide with the rest.
    // So may a method of a module-level class, through any object (`warper.resample(x)`): ".name", whose
    // calls by name across the repository decide (analyzer/grad_callers.cpp).
    if (top) out.frontier.push_back(std::string(name));
    else if (by_self && module_level_class(function) && !(name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__"))
        out.frontier.push_back("." + std::string(name));
    return out;
}

// A use is a call (`f(x)`, `mod.f(x)`) or the name passed on as a value (`retry(f)`, `fn = f`), which is
// then called in the same dynamic extent as far as anything here can tell.
std::vector<std::pair<TSNode, GradContext>> GradContextFinder::uses_of(const std::set<std::string, std::less<>>& names) const {
    std::vector<std::pair<TSNode, GradContext>> out;
    for_each_node(m_root, [&](TSNode n) {
        if (!is_type(n, "identifier") || !names.count(m_facts.text(n))) return;
        TSNode parent = ts_node_parent(n);
        if (ts_node_is_null(parent) || !ts_node_is_null(enclosing(n, {"import_statement", "import_from_statement"}))) return;
        if ((is_type(parent, "function_definition") || is_type(parent, "class_definition") || is_type(parent, "keyword_argument")) &&
            ts_node_eq(field(parent, "name"), n))
            return;  // a definition or a keyword's name, not a use
        if (is_type(parent, "attribute") && !ts_node_eq(field(parent, "attribute"), n)) return;  // `f.x`: the object is another f
        out.emplace_back(n, of(n));
    });
    return out;
}

}  // namespace mpsport::python
