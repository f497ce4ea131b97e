// Helpers shared by the tests: paths into the source tree, temporary folders, running the binary.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include "analyzer/scanner.hpp"
#include "core/rule_catalogue.hpp"

// For a test of the Clang engine: where this build made it (MPSPORT_CLANG_BUILT), an engine that does
// not load fails the test; a build configured without Clang (MPSPORT_WITH_CLANG=OFF, or no Clang
// found) skips it, and ctest says so. It never passes without having run.
#define MPSPORT_REQUIRE_CLANG_ENGINE()                                                            \
    do {                                                                                          \
        if (!::mpsport::cuda::ClangEngine::available()) {                                         \
            if (MPSPORT_CLANG_BUILT) GTEST_FAIL() << "the Clang engine was built but does not load"; \
            GTEST_SKIP() << "this build has no Clang engine (configured without Clang)";          \
        }                                                                                         \
    } while (false)

namespace mpsport::test {

inline std::filesystem::path source_dir() { return MPSPORT_SOURCE_DIR; }
inline std::filesystem::path rules_dir() { return source_dir() / "rules"; }

// The bundled rules and a scanner over them, built once for the whole test binary. Under ctest
// (which sets MPSPORT_RULES_CACHE to the build tree's rules cache) they come through that cache, as
// the tool's own do: every test is a process of its own and loads them before it registers the
// rule-fixture tests, and checking the YAML against the schemas took some 0.4 s of each sanitized
// process. The tests of the cache and of the loader's errors call load() and load_cached() themselves.
inline const RuleCatalogue& bundled_catalogue() {
    static const RuleCatalogue catalogue = [] {
        const char* cache = std::getenv("MPSPORT_RULES_CACHE");
        return cache && *cache ? RuleCatalogue::load_cached(rules_dir(), cache) : RuleCatalogue::load(rules_dir());
    }();
    return catalogue;
}
inline const Scanner& bundled_scanner() {
    static const Scanner scanner(bundled_catalogue());
    return scanner;
}

// A fresh folder under the system temp dir, removed when the object goes away.
class TempDir {
public:
    TempDir() {
        std::random_device rd;
        m_path = std::filesystem::temp_directory_path() / ("mpsport-test-" + std::to_string(rd()) + std::to_string(rd()));
        std::filesystem::create_directories(m_path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::permissions(m_path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
        std::filesystem::remove_all(m_path, ec);
    }
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path write(const std::string& rel, const std::string& text) const {
        const auto p = m_path / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream out(p, std::ios::binary);
        out << text;
        out.close();
        // A short write (a full disk) would make a test pass or fail for a reason it does not name.
        if (!out) throw std::runtime_error("cannot write test input " + p.string() + " (is the disk full?)");
        return p;
    }

private:
    std::filesystem::path m_path;
};

// Sets an environment variable for one scope and restores what was there before.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_old = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (m_old) setenv(m_name, m_old->c_str(), 1);
        else unsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

// A path as one single-quoted shell word (test paths hold no quote).
inline std::string quote(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// Trigger-free Python functions, at least `bytes` long: what pushes a file past the size from which
// only its regions are parsed (8 KiB).
inline std::string python_padding(std::size_t bytes) {
    std::string pad;
    for (int i = 0; pad.size() < bytes; ++i) pad += "def _pad_" + std::to_string(i) + "(a, b):\n    return a + b * " + std::to_string(i) + "\n\n\n";
    return pad;
}

struct CommandResult {
    int exit_code;
    std::string output;
};

// Runs a shell command, capturing stdout (stderr goes to the test log).
inline CommandResult run_command(const std::string& cmd) {
    CommandResult r{-1, {}};
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace mpsport::test
