#include "auditor/launcher.hpp"

#include <chrono>
#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#define MPSPORT_HAVE_POSIX_SPAWN 1
#endif

namespace mpsport {

#if MPSPORT_HAVE_POSIX_SPAWN

namespace {

using Clock = std::chrono::steady_clock;

void keep_tail(std::string& tail, const char* data, std::size_t n, std::size_t limit) {
    tail.append(data, n);
    if (tail.size() > 2 * limit) tail.erase(0, tail.size() - limit);
}

}  // namespace

LaunchResult launch(const LaunchOptions& options) {
    LaunchResult result;
    if (options.argv.empty()) {
        result.launch_error = "no command given";
        return result;
    }
    int out_pipe[2], err_pipe[2], exec_pipe[2];
    if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe(exec_pipe) != 0) {
        result.launch_error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    fcntl(exec_pipe[1], F_SETFD, FD_CLOEXEC);
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
        result.launch_error = std::string("fork: ") + std::strerror(errno);
        return result;
    }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        close(out_pipe[0]);
        close(err_pipe[0]);
        close(exec_pipe[0]);
        for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> argv;
        for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        const int err = errno;
        if (write(exec_pipe[1], &err, sizeof err) < 0) {
        }
        _exit(127);
    }
    setpgid(pid, pid);  // also here, so the group exists before we might signal it
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(exec_pipe[1]);
    int exec_errno = 0;
    if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
        close(exec_pipe[0]);
        close(out_pipe[0]);
        close(err_pipe[0]);
        waitpid(pid, nullptr, 0);
        result.launch_error = "cannot run '" + options.argv[0] + "': " + std::strerror(exec_errno);
        return result;
    }
    close(exec_pipe[0]);
    result.started = true;

    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
    Clock::time_point kill_at{};
    Clock::time_point drain_until{};
    bool exited = false;
    int status = 0;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[8192];
    while (open_fds > 0 || !exited) {
        if (!exited) {
            const pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = true;
                drain_until = Clock::now() + std::chrono::seconds(1);
            }
        }
        const auto now = Clock::now();
        if (!exited && !result.timed_out && now >= deadline) {
            result.timed_out = true;
            kill(-pid, SIGTERM);
            kill_at = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.grace_s));
        }
        if (result.timed_out && !exited && now >= kill_at) kill(-pid, SIGKILL);
        if (exited && open_fds > 0 && now >= drain_until) {
            kill(-pid, SIGKILL);  // leftovers of the group (workers) still hold the pipes
            break;
        }
        if (open_fds == 0) {
            if (!exited) usleep(10000);
            continue;
        }
        if (poll(fds, 2, 50) <= 0) continue;
        for (auto& p : fds) {
            if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(p.fd, buf, sizeof buf);
            if (n <= 0) {
                close(p.fd);
                p.fd = -1;
                --open_fds;
                continue;
            }
            keep_tail(result.output_tail, buf, static_cast<std::size_t>(n), options.tail_bytes);
            if (options.echo) {
                FILE* sink = p.fd == fds[0].fd ? stdout : stderr;
                fwrite(buf, 1, static_cast<std::size_t>(n), sink);
                fflush(sink);
            }
        }
    }
    for (auto& p : fds)
        if (p.fd >= 0) close(p.fd);
    kill(-pid, SIGKILL);  // nothing of the group outlives the audit
    if (result.output_tail.size() > options.tail_bytes) result.output_tail.erase(0, result.output_tail.size() - options.tail_bytes);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}

#else

LaunchResult launch(const LaunchOptions&) {
    LaunchResult r;
    r.launch_error = "mpsport audit needs a POSIX system (Linux or macOS)";
    return r;
}

#endif

}  // namespace mpsport
