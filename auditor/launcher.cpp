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

// One end of a pipe, closed when it goes out of scope: no descriptor leaks on any early return.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    void reset(int fd = -1) {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

// pipe(2) into two owned ends (both CLOEXEC: a child gets them only through dup2).
bool make_pipe(Fd& read_end, Fd& write_end) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    return true;
}

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
    Fd out_read, out_write, err_read, err_write, exec_read, exec_write;
    if (!make_pipe(out_read, out_write) || !make_pipe(err_read, err_write) || !make_pipe(exec_read, exec_write)) {
        result.launch_error = std::string("pipe: ") + std::strerror(errno);
        return result;  // the pipes made so far close here
    }
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
        result.launch_error = std::string("fork: ") + std::strerror(errno);
        return result;
    }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(out_write.get(), STDOUT_FILENO);  // dup2 clears CLOEXEC on the copies
        dup2(err_write.get(), STDERR_FILENO);
        for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> argv;
        for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        const int err = errno;
        if (write(exec_write.get(), &err, sizeof err) < 0) {
        }
        _exit(127);
    }
    setpgid(pid, pid);  // also here, so the group exists before we might signal it
    out_write.reset();
    err_write.reset();
    exec_write.reset();
    int exec_errno = 0;
    if (read(exec_read.get(), &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
        waitpid(pid, nullptr, 0);
        result.launch_error = "cannot run '" + options.argv[0] + "': " + std::strerror(exec_errno);
        return result;
    }
    exec_read.reset();
    result.started = true;

    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
    Clock::time_point kill_at{};
    Clock::time_point drain_until{};
    bool exited = false;
    int status = 0;
    pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
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
                (p.fd == out_read.get() ? out_read : err_read).reset();
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
    out_read.reset();
    err_read.reset();
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
