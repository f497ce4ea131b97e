// Which of a fixed set of literal strings occur in a text, in one pass (Aho-Corasick automaton).
// The scan's pre-filter: a file that holds none of a rule's trigger literals is never parsed for it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpsport {

class TriggerSet {
public:
    explicit TriggerSet(std::vector<std::string> literals);
    // Every occurrence: (offset of its first byte, literal index), in text order.
    std::vector<std::pair<std::size_t, std::uint32_t>> find_each(std::string_view text) const;
    const std::vector<std::string>& literals() const { return m_literals; }

private:
    std::vector<std::string> m_literals;
    std::array<std::uint8_t, 256> m_class{};        // byte -> column (0: a byte no literal holds)
    std::size_t m_columns = 1;
    std::vector<std::int32_t> m_next;               // state * m_columns + column -> state
    std::vector<std::vector<std::uint32_t>> m_out;  // literals ending at each state (suffix links folded in)
};

}  // namespace mpsport
