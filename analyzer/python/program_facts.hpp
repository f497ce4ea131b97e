// The program model's facts from one Python file: whether it is a script, its imports with the
// guard around each, the extensions it builds or loads, the entry points and project names a
// setup.py declares.
#pragma once

#include <tree_sitter/api.h>

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

}  // namespace mpsport::python
