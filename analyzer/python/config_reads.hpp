// The data files a Python file reads, from its syntax tree: run configs named by string literals
// (an f-string's holes kept), Hydra folders (`config_path="conf"`), reads of the keys the config
// rules look at (`cfg["device"]`, `cfg.get("device")`, `cfg.trainer.device`), checkpoints named
// by literals, and the calls that load them with their remap argument and the guard they sit under.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analyzer/configs/config_facts.hpp"
#include "analyzer/python/guards.hpp"
#include "analyzer/python/syntax.hpp"

namespace mpsport::python {

configs::PythonConfigFacts config_reads(TSNode root, const ModuleFacts& facts, const GuardFinder& guards, const std::set<std::string>& keys,
                                        const DataReaderVocabulary& vocabulary);

// The literals whose presence makes a file worth reading for these facts, and whose statements hold
// them (the parse covers those statements): `.yaml"`, `config_path`, `load_file(`, `"device"`, `.device`.
std::vector<std::string> config_read_literals(const std::set<std::string>& keys, const DataReaderVocabulary& vocabulary);

}  // namespace mpsport::python
