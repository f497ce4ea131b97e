// Runs body(i) for i in [0, n) on up to `jobs` threads (0: one per core), the calling thread
// among them; items are handed out one at a time, so uneven items balance. Returns when all are done.
// The first exception a body throws stops the handing out and is rethrown here, once every thread
// has finished its current item (an exception leaving a thread would end the process).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mpsport {

template <typename Body>
void parallel_for(std::size_t n, Body&& body, unsigned jobs = 0) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, n)));
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto worker = [&] {
        try {
            for (std::size_t i = next++; i < n; i = next++) body(i);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
            next = n;
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace mpsport
