// The program model's facts from one Python file: whether it is a script, its imports with the
// guard around each, the extensions it builds or loads, the entry points and project names a
// setup.py declares.
#pragma once

#include <tree_sitter/api.h>

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

FileFacts extract_program_facts(TSNode root, const ModuleFacts& facts, const GuardFinder& guards);

// The calls made through the names that the imports on `import_lines` bind, with the guard of each
// (a full parse of the file: the program model asks only for the files that import an extension).
std::vector<ImportedCall> calls_through_imports(TSNode root, const ModuleFacts& facts, const GuardFinder& guards,
                                               const std::set<int>& import_lines);

}  // namespace mpsport::python
