// Data files (run configs, checkpoints) are as needed as the code that reads them: a config that
// the training run loads matters as much as the code, one only a test loads is tooling, one nothing
// reads is weighed as unread; a CUDA-saved checkpoint that every load remaps with map_location
// needs no CUDA. The readers come from analyzer/configs (config_link, data_readers).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyzer/program/program_model.hpp"

namespace mpsport::program {

using DataReaders = std::map<std::string, std::vector<DataReader>>;  // data file -> the places that read it

// Gives each finding located in a data file the reach and chain of its strongest reader (the chain
// ends at the data file), lists every reader as a related location, and weighs the finding once.
void apply_data_reach(const ProgramModel& model, const DataReaders& readers, const ProgramVocabulary& vocabulary,
                      std::vector<Finding>& findings);

}  // namespace mpsport::program
