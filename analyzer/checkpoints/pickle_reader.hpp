// A reader for the subset of Python's pickle format that torch.save writes, which builds a tree of
// values and NEVER executes anything: a GLOBAL is recorded as a name, REDUCE / BUILD / NEWOBJ as a
// call node. Nothing is imported, no callable is invoked.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mpsport::checkpoints {

struct PickleValue;
using PicklePtr = std::shared_ptr<PickleValue>;

struct PickleValue {
    enum class Kind { none, boolean, integer, floating, string, bytes, tuple, list, dict, set, global, call, persistent_id, mark };
    Kind kind = Kind::none;
    std::int64_t integer = 0;  // also booleans
    double floating = 0;
    std::string text;             // string, bytes (as raw bytes), global ("module.name")
    std::vector<PicklePtr> items;  // tuple / list / set; dict as key, value, key, value...;
                                   // call: callable, args (and a BUILD state when there is one); persistent_id: its value
};

class PickleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PickleResult {
    PicklePtr root;
    std::size_t consumed = 0;          // bytes up to and including STOP
    std::set<std::string> globals;     // every module.name the pickle refers to
    // Every value the pickle made, owned here: a pickle can make a value contain itself (memo +
    // APPEND), a shared_ptr cycle; this releases them all when the result goes.
    std::shared_ptr<const void> arena;
};

// Reads one pickle from the start of `bytes`. Throws PickleError (with the byte offset) on an
// unknown opcode, a truncated stream or a malformed stack.
PickleResult read_pickle(std::string_view bytes);

}  // namespace mpsport::checkpoints
