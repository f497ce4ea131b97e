// Runs body(i) for i in [0, n) on up to `jobs` threads (0: one per core), the calling thread
// among them; items are handed out one at a time, so uneven items balance. Returns when all are done.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace mpsport {

template <typename Body>
void parallel_for(std::size_t n, Body&& body, unsigned jobs = 0) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n)));
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < n; i = next++) body(i);
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
}

}  // namespace mpsport
