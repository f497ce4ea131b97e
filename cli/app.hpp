// The mpsport command line: parses arguments and runs one command. main.cpp only calls this.
#pragma once

namespace mpsport::cli {

// Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 the tool failed.
int run(int argc, char** argv);

}  // namespace mpsport::cli
