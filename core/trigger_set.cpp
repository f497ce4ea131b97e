#include "core/trigger_set.hpp"

#include <queue>

namespace mpsport {

TriggerSet::TriggerSet(std::vector<std::string> literals) : m_literals(std::move(literals)) {
    // Build the trie.
    m_next.assign(256, -1);
    m_out.emplace_back();
    for (std::uint32_t i = 0; i < m_literals.size(); ++i) {
        std::int32_t state = 0;
        for (unsigned char c : m_literals[i]) {
            std::int32_t& slot = m_next[static_cast<std::size_t>(state) * 256 + c];
            if (slot < 0) {
                slot = static_cast<std::int32_t>(m_out.size());
                m_out.emplace_back();
                m_next.resize(m_next.size() + 256, -1);
            }
            state = m_next[static_cast<std::size_t>(state) * 256 + c];
        }
        m_out[static_cast<std::size_t>(state)].push_back(i);
    }
    // Breadth-first: fill failure transitions so every (state, byte) has a next state.
    std::vector<std::int32_t> fail(m_out.size(), 0);
    std::queue<std::int32_t> todo;
    for (int c = 0; c < 256; ++c) {
        std::int32_t& s = m_next[static_cast<std::size_t>(c)];
        if (s < 0) s = 0;
        else todo.push(s);
    }
    while (!todo.empty()) {
        const std::int32_t state = todo.front();
        todo.pop();
        const auto& inherited = m_out[static_cast<std::size_t>(fail[static_cast<std::size_t>(state)])];
        m_out[static_cast<std::size_t>(state)].insert(m_out[static_cast<std::size_t>(state)].end(), inherited.begin(), inherited.end());
        for (int c = 0; c < 256; ++c) {
            std::int32_t& s = m_next[static_cast<std::size_t>(state) * 256 + static_cast<std::size_t>(c)];
            const std::int32_t via_fail = m_next[static_cast<std::size_t>(fail[static_cast<std::size_t>(state)]) * 256 + static_cast<std::size_t>(c)];
            if (s < 0) {
                s = via_fail;
            } else {
                fail[static_cast<std::size_t>(s)] = via_fail;
                todo.push(s);
            }
        }
    }
}


}  // namespace mpsport

namespace mpsport {

std::vector<std::pair<std::size_t, std::uint32_t>> TriggerSet::find_each(std::string_view text) const {
    std::vector<std::pair<std::size_t, std::uint32_t>> hits;
    std::int32_t state = 0;
    const std::int32_t* next = m_next.data();
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        state = next[static_cast<std::size_t>(state) * 256 + static_cast<unsigned char>(text[pos])];
        for (std::uint32_t i : m_out[static_cast<std::size_t>(state)]) hits.emplace_back(pos + 1 - m_literals[i].size(), i);
    }
    return hits;
}

}  // namespace mpsport
