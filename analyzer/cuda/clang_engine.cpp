#include "analyzer/cuda/clang_engine.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define MPSPORT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MPSPORT_ASAN 1
#endif
#endif

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cstring>
#include <cstdint>
#include <optional>
#include <string_view>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/cuda/shim.hpp"
#include "core/paths.hpp"

#ifdef MPSPORT_WITH_CLANG
#include "analyzer/cuda/translation_unit.hpp"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace mpsport::cuda {
namespace {

// A child that needs more than this much memory is stopped, as it would be by a time limit.
constexpr rlim_t kChildMemoryLimit = rlim_t(4) << 30;

// `#define NAME body` of a header, continuation lines joined: (NAME, body) pairs. Conditionals are
// ignored on purpose: any definition might be the one a translation unit sees.
void macro_definitions(std::string_view text, std::vector<std::pair<std::string, std::string>>& out) {
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        while (end != std::string_view::npos && end > at && text[end - 1] == '\\') end = text.find('\n', end + 1);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        const std::size_t hash = line.find_first_not_of(" \t");
        if (hash == std::string_view::npos || line[hash] != '#') continue;
        line.remove_prefix(hash + 1);
        line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
        if (line.substr(0, 6) != "define") continue;
        line.remove_prefix(6);
        const std::size_t name_at = line.find_first_not_of(" \t");
        if (name_at == std::string_view::npos || name_at == 0) continue;
        std::size_t name_end = name_at;
        while (name_end < line.size() && (std::isalnum(static_cast<unsigned char>(line[name_end])) || line[name_end] == '_')) ++name_end;
        if (name_end == name_at) continue;
        out.emplace_back(std::string(line.substr(name_at, name_end - name_at)), std::string(line.substr(name_end)));
    }
}

// The macros whose expansion reaches a trigger literal, to a fixpoint over macros naming macros.
std::shared_ptr<const TriggerSet> find_trigger_macros(const std::vector<std::string>& headers, const std::vector<std::string>& literals) {
    if (literals.empty()) return nullptr;
    std::vector<std::pair<std::string, std::string>> defs;
    macro_definitions(shim_header(), defs);
    for (const std::string& h : headers) {
        try {
            const std::string text = read_file(h);
            if (text.find("define") != std::string::npos) macro_definitions(text, defs);
        } catch (const std::exception&) {
            // an unreadable header is Clang's problem when a file includes it, not the prefilter's
        }
    }
    std::set<std::string> found;
    std::unique_ptr<TriggerSet> search = std::make_unique<TriggerSet>(literals);
    for (bool grew = true; grew;) {
        std::vector<std::string> added;
        for (const auto& [name, body] : defs)
            if (!found.count(name) && !search->find_each(body).empty()) added.push_back(name);
        grew = !added.empty();
        found.insert(added.begin(), added.end());
        if (grew) search = std::make_unique<TriggerSet>(std::vector<std::string>(found.begin(), found.end()));
    }
    if (found.empty()) return nullptr;
    return std::make_shared<const TriggerSet>(std::vector<std::string>(found.begin(), found.end()));
}

json to_json(const Registration& r) {
    json devices = json::array(), callees = json::array();
    for (NativeDevice d : r.devices) devices.push_back(static_cast<int>(d));
    for (const auto& c : r.callees) callees.push_back({c.name, static_cast<int>(c.branch)});
    return {{"kind", static_cast<int>(r.kind)}, {"module", r.module},   {"op", r.op},
            {"key", r.dispatch_key},          {"fn", r.has_function}, {"devices", devices},
            {"callees", callees},             {"line", r.line},       {"col", r.col},
            {"snippet", r.snippet}};
}

Registration registration_from_json(const json& j) {
    Registration r;
    r.kind = static_cast<Registration::Kind>(j.at("kind").get<int>());
    r.module = j.at("module").get<std::string>();
    r.op = j.at("op").get<std::string>();
    r.dispatch_key = j.at("key").get<std::string>();
    r.has_function = j.at("fn").get<bool>();
    for (const auto& d : j.at("devices")) r.devices.push_back(static_cast<NativeDevice>(d.get<int>()));
    for (const auto& c : j.at("callees")) r.callees.push_back({c.at(0).get<std::string>(), static_cast<Branch>(c.at(1).get<int>())});
    r.line = j.at("line").get<int>();
    r.col = j.at("col").get<int>();
    r.snippet = j.at("snippet").get<std::string>();
    return r;
}

json facts_json(const TuFacts& facts) {
    json regs = json::array(), fns = json::array();
    for (const auto& r : facts.registrations) regs.push_back(to_json(r));
    for (const auto& f : facts.functions) fns.push_back({f.name, f.cuda, f.indirect, f.cpu});
    json out = {{"registrations", regs}, {"functions", fns}};
    if (facts.unparsed) out["unparsed"] = true;
    if (facts.includes_truncated) out["includes_truncated"] = true;
    return out;
}

TuFacts facts_of(const json& j) {
    TuFacts facts;
    for (const auto& r : j.at("registrations")) facts.registrations.push_back(registration_from_json(r));
    for (const auto& f : j.at("functions"))
        facts.functions.push_back({f.at(0).get<std::string>(), f.at(1).get<bool>(), f.at(2).get<bool>(), f.size() > 3 && f.at(3).get<bool>()});
    facts.unparsed = j.value("unparsed", false);
    facts.includes_truncated = j.value("includes_truncated", false);
    return facts;
}

#ifdef MPSPORT_WITH_CLANG
// What the child writes to its pipe: matches by rule id (the parent owns the Rule objects).
std::string result_to_wire(const TuResult& r) {
    json matches = json::array();
    for (const auto& m : r.matches) matches.push_back({m.rule->id, m.begin, m.end, m.captures});
    json out = {{"matches", matches}, {"facts", facts_json(r.facts)}};
    if (r.skip_reason) out["skip"] = *r.skip_reason;
    return out.dump();
}

TuResult result_from_wire(const std::string& wire, const std::vector<const Rule*>& rules) {
    const json j = json::parse(wire);
    TuResult r;
    if (j.contains("skip")) r.skip_reason = j.at("skip").get<std::string>();
    for (const auto& m : j.at("matches")) {
        const std::string id = m.at(0).get<std::string>();
        auto rule = std::find_if(rules.begin(), rules.end(), [&](const Rule* x) { return x->id == id; });
        if (rule == rules.end()) continue;
        Match match;
        match.rule = *rule;
        match.begin = m.at(1).get<std::size_t>();
        match.end = m.at(2).get<std::size_t>();
        match.captures = m.at(3).get<std::map<std::string, std::string>>();
        if (auto lines = match.captures.find("lines"); lines != match.captures.end()) match.lines = std::stoi(lines->second);
        r.matches.push_back(std::move(match));
    }
    r.facts = facts_of(j.at("facts"));
    return r;
}

void write_all(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

// Reads the child's answer until it closes the pipe or the deadline passes; false on timeout.
bool read_until_eof(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
    char buffer[1 << 16];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
        out.append(buffer, static_cast<std::size_t>(n));
    }
}
#endif

#ifdef MPSPORT_WITH_CLANG
// Loads libmpsport_clang.so once: next to the executable (an installed or built mpsport), else where
// the build put it (the test binaries). nullptr with `why` when it cannot be loaded.
const ClangApi* clang_api(std::string* why = nullptr) {
    static std::string error;
    static const ClangApi* api = [] () -> const ClangApi* {
        for (const fs::path& candidate : {executable_dir() / "libmpsport_clang.so", fs::path(MPSPORT_CLANG_MODULE)}) {
            std::error_code ec;
            if (!fs::exists(candidate, ec)) continue;
            void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                error = ::dlerror();
                continue;
            }
            if (auto entry = reinterpret_cast<const ClangApi* (*)()>(::dlsym(handle, "mpsport_clang_api"))) return entry();
            error = candidate.string() + " has no mpsport_clang_api";
        }
        if (error.empty()) error = "libmpsport_clang.so is not next to mpsport (reinstall, or rebuild with -DMPSPORT_WITH_CLANG=ON)";
        return nullptr;
    }();
    if (why) *why = error;
    return api;
}

struct ChildEnd {
    bool timed_out = false;
    int signal = 0;  // the signal that ended the child, 0 when it exited
};

// fork(), the pair `fds` open on both sides; when it fails, both are closed and `what` is thrown
// with the reason.
pid_t fork_with(int fds[2], const char* what) {
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;  // before close() can change it
        ::close(fds[0]);
        ::close(fds[1]);
        throw std::runtime_error(std::string(what) + ": " + std::strerror(error));
    }
    return pid;
}

// In a child that runs Clang: more memory than kChildMemoryLimit is an allocation failure. Not under
// AddressSanitizer, whose shadow memory reserves terabytes of address space: the limit would make
// every file fail to start ("Failed to mmap").
void limit_child_memory() {
#ifndef MPSPORT_ASAN
    rlimit limit{kChildMemoryLimit, kChildMemoryLimit};
    ::setrlimit(RLIMIT_AS, &limit);
#endif
}

// Runs `work` in a forked child (memory-limited) and reads what it returns through a pipe, within
// `timeout_s`; a child past it is killed.
ChildEnd run_child(unsigned timeout_s, std::string& wire, const std::function<std::string()>& work) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error(std::string("cannot create a pipe for Clang: ") + std::strerror(errno));
    const pid_t pid = fork_with(fds, "cannot fork for Clang");
    if (pid == 0) {
        ::close(fds[0]);
        limit_child_memory();
        write_all(fds[1], work());
        ::_exit(0);  // no atexit handlers or static destructors of the parent's state
    }
    ::close(fds[1]);
    ChildEnd end;
    end.timed_out = !read_until_eof(fds[0], wire, std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s));
    ::close(fds[0]);
    if (end.timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!end.timed_out && WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    return end;
}

// ---- the worker's wire: length-prefixed frames over a socket pair --------------------------------

void put_field(std::string& out, std::string_view s) {
    const std::uint64_t n = s.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out.append(s);
}

bool get_field(std::string_view& in, std::string& out) {
    std::uint64_t n = 0;
    if (in.size() < sizeof n) return false;
    std::memcpy(&n, in.data(), sizeof n);
    in.remove_prefix(sizeof n);
    if (in.size() < n) return false;
    out.assign(in.substr(0, n));
    in.remove_prefix(n);
    return true;
}

// false when the other end is gone (MSG_NOSIGNAL: no SIGPIPE for it)
bool send_frame(int fd, const std::string& bytes) {
    std::string framed;
    put_field(framed, bytes);
    std::size_t done = 0;
    while (done < framed.size()) {
        const ssize_t n = ::send(fd, framed.data() + done, framed.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

enum class FrameEnd { whole, closed, timed_out };

// One frame, by the deadline (none: wait as long as it takes, as a worker waits for work).
FrameEnd receive_frame(int fd, std::string& out, std::optional<std::chrono::steady_clock::time_point> deadline) {
    out.clear();
    std::uint64_t want = 0;
    bool have_length = false;
    std::string buffer;
    char chunk[1 << 16];
    for (;;) {
        if (!have_length && buffer.size() >= sizeof want) {
            std::memcpy(&want, buffer.data(), sizeof want);
            buffer.erase(0, sizeof want);
            have_length = true;
        }
        if (have_length && buffer.size() >= want) {
            out = std::move(buffer);
            return FrameEnd::whole;
        }
        int wait_ms = -1;
        if (deadline) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0) return FrameEnd::timed_out;
            wait_ms = static_cast<int>(std::min<long long>(left, 1000));
        }
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        const ssize_t n = ::read(fd, chunk, have_length ? std::min<std::uint64_t>(sizeof chunk, want - buffer.size()) : sizeof want - buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return FrameEnd::closed;
        buffer.append(chunk, static_cast<std::size_t>(n));
    }
}

// Every descriptor but the standard ones and `keep`: a worker holds no end of another worker's
// socket, so that closing one in the parent ends that worker.
void close_other_descriptors(int keep) {
#if defined(__linux__) && defined(SYS_close_range)
    if (::syscall(SYS_close_range, 3u, static_cast<unsigned>(keep) - 1, 0u) == 0 && ::syscall(SYS_close_range, static_cast<unsigned>(keep) + 1, ~0u, 0u) == 0)
        return;
#endif
    const long most = std::min<long>(::sysconf(_SC_OPEN_MAX), 65536);
    for (int fd = 3; fd < most; ++fd)
        if (fd != keep) ::close(fd);
}

// A worker's life: requests in, answers out, until the parent closes the socket.
[[noreturn]] void serve(int sock, const ClangRules& rules) {
    limit_child_memory();
    std::vector<std::string> headers;
    std::string request, text, kind, count;
    for (;;) {
        if (receive_frame(sock, request, std::nullopt) != FrameEnd::whole) ::_exit(0);
        std::string_view in(request);
        TuInput tu;
        std::string absolute, headers_sent;
        // A count that is no number (std::stoul throws) is as damaged as a field cut short.
        auto counted = [&](std::vector<std::string>& into) {
            if (!get_field(in, count)) return false;
            try {
                for (std::size_t n = std::stoul(count); n > 0; --n)
                    if (!get_field(in, into.emplace_back())) return false;
            } catch (const std::exception&) {
                return false;
            }
            return true;
        };
        bool ok = get_field(in, tu.path) && get_field(in, absolute) && get_field(in, kind) && get_field(in, text) &&
                  get_field(in, tu.prefix_pch) && counted(tu.flags) && get_field(in, headers_sent);
        if (ok && headers_sent == "1") {
            headers.clear();
            ok = counted(headers);
        }
        TuResult result;
        if (!ok) {
            result.skip_reason = "the Clang worker received a damaged request";
        } else {
            tu.absolute = absolute;
            tu.kind = static_cast<FileKind>(std::atoi(kind.c_str()));
            tu.text = &text;
            tu.repo_headers = &headers;
            try {
                result = clang_api()->run(rules, tu);
            } catch (const std::exception& e) {
                result = TuResult{};
                result.skip_reason = std::string("Clang failed: ") + e.what();
            }
        }
        if (!send_frame(sock, result_to_wire(result))) ::_exit(0);
    }
}
#endif

}  // namespace

#ifdef MPSPORT_WITH_CLANG
const std::string& ClangEngine::prefix(bool cuda) const {
    static const std::string none;
    // Building it costs about two files' parse with the prefix read as text.
    constexpr unsigned kParsesWithoutPrefix = 2;
    // MPSPORT_CLANG_PREFIX=0: every file reads the prefix as text instead (slower; the same
    // findings, which the tests check).
    const char* setting = std::getenv("MPSPORT_CLANG_PREFIX");
    if ((setting && std::string(setting) == "0") || m_parses.fetch_add(1) < kParsesWithoutPrefix) return none;
    std::call_once(m_prefix_built[cuda], [&] {
        {
            std::lock_guard<std::mutex> lock(m_prefix_dir_mutex);
            if (m_prefix_dir.empty()) {
                std::string pattern = (fs::temp_directory_path() / "mpsport-prefix-XXXXXX").string();
                if (!::mkdtemp(pattern.data())) return;
                m_prefix_dir = pattern;
            }
        }
        const std::string output = m_prefix_dir + (cuda ? "/cuda.pch" : "/cxx.pch");
        std::string error;
        const ChildEnd end = run_child(120, error, [&] { return clang_api()->prefix(output, cuda); });
        std::error_code ec;
        if (!end.timed_out && !end.signal && error.empty() && fs::is_regular_file(output, ec)) {
            m_prefix[cuda] = output;
        } else if (std::getenv("MPSPORT_CLANG_PROFILE")) {
            std::fprintf(stderr, "mpsport: no %s prefix (%s)\n", cuda ? "CUDA" : "C++",
                         end.timed_out ? "timed out" : end.signal ? "crashed" : error.c_str());
        }
    });
    return m_prefix[cuda];
}
#endif

std::string facts_to_json(const TuFacts& facts) { return facts_json(facts).dump(); }
TuFacts facts_from_json(const std::string& text) { return facts_of(json::parse(text)); }

ClangEngine::ClangEngine(const RuleCatalogue& catalogue) {
    std::vector<std::string> literals;
    bool every_rule_has_triggers = true;
    for (const auto& r : catalogue.rules()) {
        if (r.engine != "clang") continue;
        m_rules.push_back(&r);
        every_rule_has_triggers = every_rule_has_triggers && !r.triggers.empty();
        literals.insert(literals.end(), r.triggers.begin(), r.triggers.end());
    }
    if (every_rule_has_triggers && !literals.empty()) {
        m_shim_macros = find_trigger_macros({}, literals);
        m_triggers = std::make_unique<TriggerSet>(std::move(literals));
    }
}

void ClangEngine::prepare() const {
#ifdef MPSPORT_WITH_CLANG
    std::call_once(m_prepared, [this] {
        if (m_rules.empty()) return;
        if (const ClangApi* api = clang_api(&m_unavailable)) m_compiled = api->compile(m_rules);
    });
#endif
}

// A worker process and the parent's end of its socket. Retired after kMaxServed files: what Clang
// leaves behind in its heap (fragments, interned names) does not grow without bound.
struct ClangEngine::Worker {
    static constexpr unsigned kMaxServed = 64;
    pid_t pid = -1;
    int sock = -1;
    unsigned served = 0;
    std::vector<std::string> headers;  // the repository headers it holds (sent again only when they change)

    // How it ended, once it is gone: the signal that ended it, or 0.
    int reap(bool kill_first) {
        if (sock >= 0) ::close(sock);
        sock = -1;
        if (pid <= 0) return 0;
        if (kill_first) ::kill(pid, SIGKILL);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        pid = -1;
        return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    ~Worker() { reap(true); }
};

std::unique_ptr<ClangEngine::Worker> ClangEngine::take_worker() const {
    {
        std::lock_guard<std::mutex> lock(m_workers_mutex);
        if (!m_idle_workers.empty()) {
            auto w = std::move(m_idle_workers.back());
            m_idle_workers.pop_back();
            return w;
        }
    }
#ifdef MPSPORT_WITH_CLANG
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw std::runtime_error(std::string("cannot create a socket for a Clang worker: ") + std::strerror(errno));
    const pid_t pid = fork_with(fds, "cannot fork a Clang worker");
    if (pid == 0) {
        close_other_descriptors(fds[1]);
        serve(fds[1], *m_compiled);
    }
    ::close(fds[1]);
    auto w = std::make_unique<Worker>();
    w->pid = pid;
    w->sock = fds[0];
    return w;
#else
    return nullptr;
#endif
}

void ClangEngine::give_back(std::unique_ptr<Worker> worker) const {
    if (!worker || worker->served >= Worker::kMaxServed) return;  // retired by its destructor
    std::lock_guard<std::mutex> lock(m_workers_mutex);
    m_idle_workers.push_back(std::move(worker));
}

ClangEngine::~ClangEngine() {
    m_idle_workers.clear();
    if (!m_prefix_dir.empty()) {
        std::error_code ec;
        fs::remove_all(m_prefix_dir, ec);
    }
}

bool ClangEngine::available() {
#ifdef MPSPORT_WITH_CLANG
    return true;
#else
    return false;
#endif
}

std::string ClangEngine::description() {
#ifdef MPSPORT_WITH_CLANG
    std::string why;
    if (const ClangApi* api = clang_api(&why)) return "Clang " + api->version() + " (C++/CUDA sources are parsed; no CUDA toolkit needed)";
    return "built, but its module cannot be loaded: " + why;
#else
    return "not built: this mpsport was configured without Clang, so rules with engine: clang do not run "
           "(install libclang-cpp14-dev libclang-14-dev llvm-14-dev and rebuild with -DMPSPORT_WITH_CLANG=ON)";
#endif
}

std::vector<std::string> ClangEngine::trigger_literals() const {
    return m_triggers ? m_triggers->literals() : std::vector<std::string>();
}

bool ClangEngine::needs_parse(const std::string& text, const CompileFlags& flags) const {
    if (!m_triggers || !m_triggers->find_each(text).empty()) return true;
    const TriggerSet* macros = flags.trigger_macros() ? flags.trigger_macros() : m_shim_macros.get();
    return macros && !macros->find_each(text).empty();
}

bool ClangEngine::forks_need_one_thread() {
#ifdef MPSPORT_ASAN
    return true;
#else
    return false;
#endif
}

bool ClangEngine::reads(FileKind kind) const {
    if (!available() || m_rules.empty()) return false;
    const std::string name(to_string(kind));
    return std::any_of(m_rules.begin(), m_rules.end(), [&](const Rule* r) {
        return std::find(r->file_kinds.begin(), r->file_kinds.end(), name) != r->file_kinds.end();
    });
}

TuResult ClangEngine::analyze(const std::string& path, const fs::path& absolute, FileKind kind, const std::string& text,
                              const CompileFlags& flags, unsigned timeout_s, bool always) const {
    TuResult result;
    prepare();
    if (!m_compiled) return result;  // the module did not load: unavailable() says why
    if (!always && !needs_parse(text, flags)) {
        result.facts.unparsed = true;
        return result;
    }
#ifdef MPSPORT_WITH_CLANG
    TuInput in{path, absolute, kind, &text, flags.for_file(absolute), &flags.headers(), {}};
    // MPSPORT_CLANG_PROFILE=1: each parsed file's wall time on standard error, to find the slow ones.
    static const bool profile = std::getenv("MPSPORT_CLANG_PROFILE") != nullptr;
    const auto started = std::chrono::steady_clock::now();
    struct Report {
        bool on;
        const std::string& path;
        std::chrono::steady_clock::time_point started;
        ~Report() {
            if (on)
                std::fprintf(stderr, "mpsport: clang %8.3f s %s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                             path.c_str());
        }
    } report{profile, path, started};
    in.prefix_pch = prefix(parses_as_cuda(kind, text));
    for (;;) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
        // The request; a worker that died idle (killed from outside) is replaced once.
        std::unique_ptr<Worker> worker;
        for (int attempt = 0; attempt < 2 && !worker; ++attempt) {
            worker = take_worker();
            std::string request;
            put_field(request, in.path);
            put_field(request, in.absolute.string());
            put_field(request, std::to_string(static_cast<int>(in.kind)));
            put_field(request, *in.text);
            put_field(request, in.prefix_pch);
            put_field(request, std::to_string(in.flags.size()));
            for (const auto& f : in.flags) put_field(request, f);
            const bool same_headers = worker->headers == *in.repo_headers;
            put_field(request, same_headers ? "0" : "1");
            if (!same_headers) {
                put_field(request, std::to_string(in.repo_headers->size()));
                for (const auto& h : *in.repo_headers) put_field(request, h);
                worker->headers = *in.repo_headers;
            }
            if (!send_frame(worker->sock, request)) worker.reset();
        }
        if (!worker) throw std::runtime_error("no Clang worker takes requests (each one forked ended at once)");
        std::string wire;
        const FrameEnd end = receive_frame(worker->sock, wire, deadline);
        if (end == FrameEnd::timed_out) {
            worker->reap(true);
            result.skip_reason = "Clang timed out after " + std::to_string(timeout_s) + " s on this translation unit";
        } else if (end == FrameEnd::closed) {
            const int signal = worker->reap(false);
            result.skip_reason = signal ? "Clang crashed on this translation unit (signal " + std::to_string(signal) + ")"
                                        : std::string("the Clang worker ended without an answer on this translation unit");
        } else {
            ++worker->served;
            give_back(std::move(worker));
            try {
                result = result_from_wire(wire, m_rules);
            } catch (const std::exception& e) {
                result.skip_reason = std::string("Clang worker answered nothing usable: ") + e.what();
            }
        }
        // A precompiled prefix that this file cannot load (a fatal error naming it) costs the file
        // nothing: it reads the prefix as text.
        if (in.prefix_pch.empty() || !result.skip_reason || result.skip_reason->find(in.prefix_pch) == std::string::npos) break;
        in.prefix_pch.clear();
        result = TuResult{};
    }
#else
    (void)path, (void)absolute, (void)kind, (void)text, (void)flags, (void)timeout_s, (void)always;
    result.skip_reason = "this build has no Clang engine";
#endif
    return result;
}

// ---- include paths -------------------------------------------------------------------------------

namespace {

std::vector<std::string> split_command(const std::string& command) {
    // compile_commands.json "command": shell words; quotes are rare in -I/-D flags, handle the simple forms.
    std::vector<std::string> out;
    std::string word;
    char quote = 0;
    for (char c : command) {
        if (quote) {
            if (c == quote) quote = 0;
            else word.push_back(c);
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == ' ' || c == '\t') {
            if (!word.empty()) out.push_back(std::move(word)), word.clear();
        } else {
            word.push_back(c);
        }
    }
    if (!word.empty()) out.push_back(word);
    return out;
}

// The flags Clang can use from a compiler command (gcc, clang or nvcc): include paths, macros, standard.
std::vector<std::string> useful_flags(const std::vector<std::string>& args, const fs::path& directory) {
    std::vector<std::string> out;
    auto absolute = [&](const std::string& p) { return fs::path(p).is_absolute() ? p : (directory / p).lexically_normal().string(); };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        for (const char* flag : {"-I", "-isystem", "-iquote", "-D", "-U"}) {
            const std::string f(flag);
            if (a == f && i + 1 < args.size()) {
                const std::string v = args[++i];
                out.push_back(f);
                out.push_back(f == "-D" || f == "-U" ? v : absolute(v));
            } else if (a.size() > f.size() && a.compare(0, f.size(), f) == 0 && (f == "-I" || f == "-D" || f == "-U")) {
                const std::string v = a.substr(f.size());
                out.push_back(f + (f == "-I" ? absolute(v) : v));
            }
        }
    }
    return out;
}

std::vector<std::string> repository_headers(const fs::path& root) {
    constexpr std::size_t kMostHeaders = 50000;
    std::vector<std::string> out;
    std::error_code ec;
    auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator() && out.size() < kMostHeaders; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_directory(ec)) {
            if (it.depth() >= 12 || name.front() == '.' || name == "node_modules" || name == "build" || name == "site-packages")
                it.disable_recursion_pending();
            continue;
        }
        const std::string ext = it->path().extension().string();
        if (ext == ".h" || ext == ".hpp" || ext == ".hh" || ext == ".cuh" || ext == ".inl" || ext == ".cu" || ext == ".cpp")
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

CompileFlags CompileFlags::infer(const fs::path& base, const std::vector<std::string>& trigger_literals) {
    CompileFlags flags;
    std::error_code ec;
    const fs::path root = fs::is_directory(base, ec) ? base : base.parent_path();
    for (const fs::path& db : {root / "compile_commands.json", root / "build" / "compile_commands.json"}) {
        if (!fs::is_regular_file(db, ec)) continue;
        try {
            for (const auto& entry : json::parse(read_file(db))) {
                const fs::path dir = entry.value("directory", root.string());
                std::vector<std::string> args = entry.contains("arguments") ? entry.at("arguments").get<std::vector<std::string>>()
                                                                             : split_command(entry.value("command", ""));
                fs::path file = entry.at("file").get<std::string>();
                if (file.is_relative()) file = dir / file;
                flags.m_by_file[fs::weakly_canonical(file, ec).string()] = useful_flags(args, dir);
            }
        } catch (const std::exception&) {
            flags.m_by_file.clear();  // unreadable: fall back to inferred include folders
        }
        break;
    }
    flags.m_headers = repository_headers(root);
    flags.m_trigger_macros = find_trigger_macros(flags.m_headers, trigger_literals);
    // The repository root and its include/ folders (shallow: vendored trees live deeper). WITH_CUDA is
    // the macro torch extensions' setup.py files define for their CUDA build (torchvision, detectron2,
    // ...): the CUDA build is the one whose device paths matter here.
    flags.m_common = {"-I" + root.string()};
    auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!it->is_directory(ec)) continue;
        if (it.depth() >= 3 || name.front() == '.' || name == "node_modules" || name == "build") {
            it.disable_recursion_pending();
            continue;
        }
        if (name == "include" && flags.m_common.size() < 32) flags.m_common.push_back("-I" + it->path().string());
    }
    return flags;
}

std::vector<std::string> CompileFlags::for_file(const fs::path& absolute) const {
    std::error_code ec;
    auto it = m_by_file.find(fs::weakly_canonical(absolute, ec).string());
    std::vector<std::string> out = it != m_by_file.end() ? it->second : std::vector<std::string>{"-DWITH_CUDA"};
    out.insert(out.end(), m_common.begin(), m_common.end());
    return out;
}

}  // namespace mpsport::cuda
