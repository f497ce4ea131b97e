// Commands of a shell script, Dockerfile or Makefile as the shell reads them: a physical line that
// ends in a backslash continues on the next. Read by the line rules (lines/line_engine.cpp) and by
// the launch lines of the program model (program/entry_refs.cpp).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport::lines {

struct ShellCommand {
    // The physical lines joined, with one space where each backslash and the next line's indent were
    // (mmpose's dist_train.sh: `python -m torch.distributed.launch \` / `    --nproc_per_node=$GPUS \`).
    std::string text;
    int first_line = 0;  // 1-based
    int last_line = 0;
    bool comment = false;  // a comment line: its backslash continues nothing
    struct Piece {
        std::size_t at;      // offset in text
        std::size_t source;  // offset in the source
    };
    std::vector<Piece> pieces;  // pieces[0].at == 0

    // The source offset of an offset in `text`.
    std::size_t source_offset(std::size_t offset) const;
};

// Every command of `text`, a comment line being one of its own, which also ends a command continued
// onto it. A '\r' before a newline is dropped. `join` false: one command per line.
std::vector<ShellCommand> shell_commands(std::string_view text, bool join = true);

// The words of a command, quotes and the separators `,;&|()[]` read as spaces.
std::vector<std::string> tokens_of(std::string_view command);

// The shell variables of a script (or of one fenced block of a README) that plain assignments set
// (`CONFIG=configs/base.yaml`, `export EXP=toy`), for the commands after them.
using ShellVariables = std::map<std::string, std::string>;

// `NAME=value` and `export NAME=value` before the command of a line (or alone on it) set NAME for
// the lines after it; the tokens are the line's, their variables already expanded.
void assign(const std::vector<std::string>& tokens, ShellVariables& variables);

// `text` with the values of the variables set before it ($NAME, ${NAME}); the others as written.
std::string expand(const std::string& text, const ShellVariables& variables);

// A variable nobody set, as a placeholder: `configs/${EXP}.yaml` -> `configs/{EXP}.yaml`, which
// names any file of that folder (as an f-string's `{name}` does in Python).
std::string as_placeholders(const std::string& token);

}  // namespace mpsport::lines
