// Runs the user's command in its own process group with a timeout that stops the whole group,
// streaming its output through while keeping the tail.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace mpsport {

struct LaunchOptions {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
    double timeout_s = 600;
    double grace_s = 5;          // between SIGTERM and SIGKILL
    bool echo = true;            // stream the command's output to ours
    std::size_t tail_bytes = 16384;
};

struct LaunchResult {
    bool started = false;
    std::string launch_error;  // why the command could not start (exec failed), empty when it ran
    int exit_code = -1;        // when it exited
    int signal = 0;            // when a signal ended it
    bool timed_out = false;
    double seconds = 0;
    std::string output_tail;   // stdout and stderr interleaved, last tail_bytes
};

LaunchResult launch(const LaunchOptions& options);

}  // namespace mpsport
