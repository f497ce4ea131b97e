// Python syntax facts over a tree-sitter tree: node text, dotted names resolved through the file's
// imports, string values (through module-level constants), enclosing scopes.
#pragma once

#include <tree_sitter/api.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace mpsport::python {

class ModuleFacts {
public:
    ModuleFacts(TSNode root, std::string_view text);

    // `T.cuda.synchronize` with `import torch as T` -> "torch.cuda.synchronize"; "" if `node` is not a
    // dotted name (a call, a subscript, ...). Names the file never imports are left as written.
    std::string qualname(TSNode node) const;
    // The text value of a string literal, or of a name bound once at module level to one.
    std::optional<std::string> string_value(TSNode node) const;

    // Where a module-level string constant is bound: its value node, or a null node.
    TSNode constant_definition(std::string_view name) const;
    // The value a module-level name is bound to once (any expression), or a null node.
    TSNode module_binding(std::string_view name) const;
    // Is `name` bound by an import in this file (a module or a name taken from one)?
    bool is_imported(std::string_view name) const { return m_aliases.find(name) != m_aliases.end(); }

    std::string_view text(TSNode node) const;
    std::string_view source() const { return m_text; }
    // Every import / from-import statement in the file, in order.
    const std::vector<TSNode>& imports() const { return m_imports; }
    // Every identifier node written `name` in the parsed file, in document order. The index is built
    // on the first call (one walk, where each question about a name walked the whole tree).
    const std::vector<TSNode>& identifiers_named(std::string_view name) const;

private:
    void add_import(TSNode node);
    void add_constants(TSNode root);

    std::string_view m_text;
    TSNode m_root;
    mutable std::optional<std::map<std::string_view, std::vector<TSNode>, std::less<>>> m_identifiers;  // identifiers_named
    std::vector<TSNode> m_imports;
    std::map<std::string, std::string, std::less<>> m_aliases;  // local name -> qualified name
    std::map<std::string, std::string, std::less<>> m_constants;  // module-level name -> string value
    std::map<std::string, TSNode, std::less<>> m_constant_nodes;  // module-level name -> its value node
    std::map<std::string, TSNode, std::less<>> m_bindings;        // module-level name bound once -> its value
};

std::string_view node_type(TSNode node);
bool is_type(TSNode node, std::string_view type);
// Calls fn on `root` and every node below it, in document order.
void for_each_node(TSNode root, const std::function<void(TSNode)>& fn);
TSNode field(TSNode node, std::string_view name);
// The literal content of a `string` node (interpolations kept as written: f"cuda:{rank}" -> "cuda:{rank}").
std::optional<std::string> string_literal(TSNode node, std::string_view text);
// The top-level names of the modules an import statement imports, as written: `import a.b, c as d`
// gives a and c, `from e.f import g` gives e; a relative import's module gives none.
std::vector<std::string> imported_packages(TSNode import, const ModuleFacts& facts);
// Nearest ancestor of one of the given types, or a null node.
TSNode enclosing(TSNode node, std::initializer_list<std::string_view> types);
// `if __name__ == "__main__":` (either side of the comparison).
bool is_main_guard(TSNode if_statement, const ModuleFacts& facts);
bool contains(TSNode outer, TSNode inner);
// The scope a name of `node` lives in: its enclosing function, or the module (the tree's root).
TSNode scope_of(TSNode node);
// The identifiers spelling `name`'s text that start at or after byte `after`, in `name`'s scope, in
// document order: the later uses of the name an assignment binds.
std::vector<TSNode> later_uses(TSNode name, uint32_t after, const ModuleFacts& facts);
// Whether `value` is one of `list` (vocabulary and rule-parameter look-ups).
bool listed(const std::vector<std::string>& list, std::string_view value);
// Source text as one line for a message: whitespace runs become one space; past `max` bytes it
// stops with "...".
std::string one_line(std::string_view text, std::size_t max = 80);
// The words of an identifier, lower-cased, split at `_`, digits and case changes:
// `_inference_one_image` -> inference, one, image; `GeneralizedRCNNWithTTA` -> generalized, rcnn, with, tta.
std::vector<std::string> identifier_words(std::string_view name);

// The branch of its function a statement or call sits in: "elif engine:" for an if/elif/else arm,
// "an except clause" for a handler; nullopt at module level or straight in the function's body.
std::optional<std::string> branch_in_function(TSNode node, const ModuleFacts& facts);
// Past an early return in its function whose test names `word` (trl's `if not is_deepspeed_zero3_enabled():
// return nullcontext()`, then `import deepspeed`): what follows runs only where that test fails, one
// branch of the function as well. "past `if <test>: return`", or nullopt.
std::optional<std::string> past_early_return_naming(TSNode node, const ModuleFacts& facts, std::string_view word);
// The blocks of an if statement in order: its consequence, each elif's, then the else's body.
struct IfArms {
    std::vector<TSNode> blocks;
    bool has_else = false;  // the last block is an else's: some block always runs
};
IfArms if_arms(TSNode if_statement);

// The value of a call's keyword argument `name`, or a null node.
TSNode keyword_argument(TSNode call, std::string_view name, const ModuleFacts& facts);
// A call's `index`-th positional argument (comments skipped), or a null node.
TSNode positional_argument(TSNode call, uint32_t index);

// The names an import statement binds: `import a.b` binds a, `import a as x` x, `from m import a, b as c`
// a and c; nullopt for `from m import *`, whose names are the module's.
std::optional<std::vector<std::string>> names_bound_by(TSNode import, const ModuleFacts& facts);

// A name the function `def` binds once, by `name = False` (or None, or 0), and nowhere else; the
// value written, or a null node.
TSNode local_constant(TSNode def, std::string_view name, const ModuleFacts& facts);
// A condition that never holds: a name its function binds only to False, None or 0 (local_constant),
// alone or as an operand of `and`. gaussian-opacity-fields' `is_save_images = False` then
// `if is_save_images and ...:`. The binding as "is_save_images = False (line 193)"; nullopt otherwise.
std::optional<std::string> never_holds(TSNode condition, const ModuleFacts& facts);
// The default value of the parameter `name` of a function definition, or a null node when it has none.
TSNode parameter_default(TSNode function_definition, std::string_view name, const ModuleFacts& facts);
// The default of the parameter `flag` (or `self.flag`, through the class's __init__) stands for; null if not known.
TSNode flag_default(TSNode flag_node, const ModuleFacts& facts);
// A condition that is a flag off by default: `flash` or `self.flash`, where the function around it has
// a parameter `flash` that defaults to False or None (x-transformers' Attend(flash=False)), or `not
// flag` where it defaults to True. The parameter as "flash=False"; nullopt otherwise.
std::optional<std::string> off_by_default_flag(TSNode condition, const ModuleFacts& facts);

// `detectron2.utils.comm.get_world_size` -> `get_world_size`
std::string_view last_segment(std::string_view dotted);

// The last names of a decorated_definition's decorators, a call's function for the call:
// `@attr.s(eq=False)` -> "s", `@torch.no_grad()` -> "no_grad".
std::vector<std::string_view> decorator_names(TSNode decorated, const ModuleFacts& facts);

// A whole Python text, parsed once: its root (a null node when tree-sitter gives no tree) and, made
// on first use, its facts. The text must outlive it.
class ParsedModule {
public:
    explicit ParsedModule(std::string_view text);
    ~ParsedModule();
    ParsedModule(const ParsedModule&) = delete;
    ParsedModule& operator=(const ParsedModule&) = delete;
    TSNode root() const;
    const ModuleFacts& facts() const;

private:
    std::string_view m_text;
    TSParser* m_parser = nullptr;
    TSTree* m_tree = nullptr;
    mutable std::unique_ptr<ModuleFacts> m_facts;
};

// The whole file's tree, parsed on first use and then shared by every analysis of the file: a scan
// parses only the statements that can match, while a call's callers, decorators and class, or the
// later calls of a name an import binds, lie outside its statement. The text must outlive it.
class FullTree {
public:
    explicit FullTree(std::string_view text) : m_text(text) {}
    TSNode root() const { return parsed().root(); }
    const ModuleFacts& facts() const { return parsed().facts(); }
    // The node of the whole tree with `node`'s bytes and type, or a null node.
    TSNode node_at(TSNode node) const;

private:
    const ParsedModule& parsed() const {
        if (!m_parsed) m_parsed = std::make_unique<ParsedModule>(m_text);
        return *m_parsed;
    }
    std::string_view m_text;
    mutable std::unique_ptr<ParsedModule> m_parsed;
};

// The `for` loop around `use` whose target binds `name` (`for k, v in sd.items():`), within the
// function `use` is in; a null node when there is none.
TSNode binding_loop(TSNode use, std::string_view name, const ModuleFacts& facts);

// What a call passes: its keywords' names, how many positional arguments, whether it spreads
// `*args` / `**kwargs` (then what it passes is not known).
struct PassedArguments {
    std::vector<std::string> keywords;
    int positional = 0;
    bool spread = false;
};
PassedArguments passed_arguments(TSNode call, const ModuleFacts& facts);

// Each parameter of a function_definition: its node, its position (0-based, `skipped` leading ones
// such as a constructor's self counted below zero) or -1 past a `*` or `*args` (keyword only).
void for_each_parameter(TSNode def, int skipped, const std::function<void(TSNode parameter, int position)>& fn);

}  // namespace mpsport::python
