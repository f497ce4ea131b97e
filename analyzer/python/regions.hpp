// Which parts of a Python file to parse: the top-level statements that hold a trigger literal,
// plus the imports. Parsing only those (tree-sitter's included ranges) is what keeps a cold scan of
// a large tree fast: most of an ML file never mentions CUDA, float64 or NCCL.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpsport::python {

struct Chunk {
    std::size_t begin = 0;  // byte offset of the statement's first line
    std::size_t end = 0;    // one past its last byte
    unsigned row = 0;       // 0-based line of `begin`
    bool is_import = false; // import / from-import, or a try block that imports
};

// Splits source into top-level statements (decorators stay with their def, else/elif/except/finally
// with their if/try), following brackets, backslash continuations and triple-quoted strings.
std::vector<Chunk> top_level_chunks(std::string_view text);

// The statements of one block: lines of [begin, end) indented by exactly `indent` characters start a
// statement (used for the members of a class).
std::vector<Chunk> block_chunks(std::string_view text, std::size_t begin, std::size_t end, unsigned first_row, std::size_t indent);

// The indentation of the first code line after the header line of the chunk (a class body), 0 if none.
std::size_t body_indent(std::string_view text, const Chunk& chunk);

// The statements holding one of `hits` (trigger literal offsets, in text order), the imports, and the
// statements using names those bind, as tree-sitter ranges; empty when the file should be parsed whole.
// `follow_definitions`: also the statements that name a function or class a kept one defines, and
// so on up the callers (what a guard found through a file's own callers reads).
std::vector<TSRange> regions_to_parse(std::string_view text, const std::vector<std::pair<std::size_t, std::uint32_t>>& hits,
                                      bool follow_definitions = false);

// Where each of `words` stands as a whole word in `text` (offset, index into `words`), in text order.
std::vector<std::pair<std::size_t, std::uint32_t>> word_hits(std::string_view text, const std::vector<std::string>& words);

}  // namespace mpsport::python
