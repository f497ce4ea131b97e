// The program model's facts from one Python file: whether it is a script, its imports with the
// guard around each, the extensions it builds or loads, the entry points and project names a
// setup.py declares.
#pragma once

#include <tree_sitter/api.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyzer/python/guards.hpp"
#include "analyzer/python/syntax.hpp"
#include "core/program_facts.hpp"

namespace mpsport::python {

// Literals whose presence makes a file worth parsing for its facts (and the statements holding
// them worth including when only regions of the file are parsed).
const std::vector<std::string>& program_fact_literals();

// `target_keys` (rules/program.yaml readers.config_target_keys): a dict entry of the code that names a
// class by its dotted path (`"target": "audioldm.clap.encoders.CLAPAudioEmbeddingClassifierFreev2"`,
// built by instantiate_from_config) imports its module, as the same key in a YAML config does.
FileFacts extract_program_facts(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::vector<std::string>& target_keys);
// How such an entry is written: `"target"`, `'target'`, `target=` (trigger literals of the engine).
std::vector<std::string> target_key_literals(const std::vector<std::string>& target_keys);

// The calls made through the names that the imports on `import_lines` bind, with the guard of each
// (a full parse of the file: the program model asks only for the files that import an extension).
std::vector<ImportedCall> calls_through_imports(TSNode root, const ModuleFacts& facts, const GuardFinder& guards,
                                               const std::set<int>& import_lines);

// What one file does with some module-level functions of one module (`module`, dotted, as
// "utils.torch_utils"; `importer` is this file's own dotted name, for its relative imports): each call
// of them with the guard around it (through this file's callers of the function the call sits in), and
// the names it uses otherwise (passes, stores, decorates, aliases), which no guard pass can follow.
// In the module itself (`defining`), the plain calls of the names count, and `function_at` gives the
// module-level function each of `lines` sits in ("" outside one, in a class, or in a decorated one: a
// decorator may register it where no call shows); with no `names` given there, the calls of those functions.
// The calls of methods, by name, in one file (analyzer/call_guards.cpp): `x.name(...)` whatever x is.
FunctionUses uses_of_methods(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::set<std::string>& names);
FunctionUses uses_of_functions(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::set<std::string>& names,
                               const std::string& module, const std::string& importer, bool defining, const std::set<int>& lines);

// The ImportUse of the module-level import statement that starts on `line` (a full parse).
ImportUse import_use(TSNode root, const ModuleFacts& facts, int line);

// The names a module holds only as registry values (core/program_facts.hpp RegistryChoice), by the
// name held (a full parse).
std::map<std::string, RegistryChoice> registry_choices(TSNode root, const ModuleFacts& facts);

}  // namespace mpsport::python
