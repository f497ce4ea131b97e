#include "cli/app.hpp"

int main(int argc, char** argv) { return mpsport::cli::run(argc, argv); }
