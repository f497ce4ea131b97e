#include "core/trigger_set.hpp"

#include <queue>

namespace mpsport {

TriggerSet::TriggerSet(std::vector<std::string> literals) : m_literals(std::move(literals)) {
    // Bytes that occur in no literal all behave alike: one column of the automaton serves them all
    // (identifiers use ~60 distinct bytes, so the table is ~4x smaller than one of 256 columns and
    // its construction, which was a tenth of a pre-commit check's start-up, as much faster).
    m_class.fill(0);
    m_columns = 1;
    for (const auto& lit : m_literals)
        for (unsigned char c : lit)
            if (m_class[c] == 0) m_class[c] = static_cast<std::uint8_t>(m_columns++);
    const std::size_t cols = m_columns;

    // Build the trie.
    m_next.assign(cols, -1);
    m_out.emplace_back();
    for (std::uint32_t i = 0; i < m_literals.size(); ++i) {
        std::int32_t state = 0;
        for (unsigned char c : m_literals[i]) {
            const std::size_t slot = static_cast<std::size_t>(state) * cols + m_class[c];
            if (m_next[slot] < 0) {
                m_next[slot] = static_cast<std::int32_t>(m_out.size());
                m_out.emplace_back();
                m_next.resize(m_next.size() + cols, -1);
            }
            state = m_next[slot];
        }
        m_out[static_cast<std::size_t>(state)].push_back(i);
    }
    // Breadth-first: fill failure transitions so every (state, column) has a next state.
    std::vector<std::int32_t> fail(m_out.size(), 0);
    std::queue<std::int32_t> todo;
    for (std::size_t c = 0; c < cols; ++c) {
        std::int32_t& s = m_next[c];
        if (s < 0) s = 0;
        else todo.push(s);
    }
    while (!todo.empty()) {
        const auto state = static_cast<std::size_t>(todo.front());
        todo.pop();
        const auto& inherited = m_out[static_cast<std::size_t>(fail[state])];
        m_out[state].insert(m_out[state].end(), inherited.begin(), inherited.end());
        for (std::size_t c = 0; c < cols; ++c) {
            std::int32_t& s = m_next[state * cols + c];
            const std::int32_t via_fail = m_next[static_cast<std::size_t>(fail[state]) * cols + c];
            if (s < 0) {
                s = via_fail;
            } else {
                fail[static_cast<std::size_t>(s)] = via_fail;
                todo.push(s);
            }
        }
    }
}

std::vector<std::pair<std::size_t, std::uint32_t>> TriggerSet::find_each(std::string_view text) const {
    std::vector<std::pair<std::size_t, std::uint32_t>> hits;
    std::size_t state = 0;
    const std::int32_t* next = m_next.data();
    const std::size_t cols = m_columns;
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        state = static_cast<std::size_t>(next[state * cols + m_class[static_cast<unsigned char>(text[pos])]]);
        for (std::uint32_t i : m_out[state]) hits.emplace_back(pos + 1 - m_literals[i].size(), i);
    }
    return hits;
}

}  // namespace mpsport
