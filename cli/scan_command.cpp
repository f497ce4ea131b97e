#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analyzer/scan_cache.hpp"
#include "analyzer/scanner.hpp"
#include "auditor/trace.hpp"
#include "cli/commands.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "reports/op_evidence.hpp"
#include "reports/render.hpp"

namespace fs = std::filesystem;

namespace mpsport::cli {
namespace {

// Runs a git command (no shell) and returns its standard output; throws naming the command on failure.
std::string run_git(const std::vector<std::string>& argv_strings) {
#if defined(__unix__) || defined(__APPLE__)
    std::string cmd = "git";
    for (const auto& a : argv_strings) {
        cmd += " '";
        for (char c : a) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
        cmd += "'";
    }
    cmd += " 2>/dev/null";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) throw std::runtime_error("--changed: cannot run git; pass the files to check instead");
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    if (pclose(pipe) != 0) throw std::runtime_error("--changed: `" + cmd + "` failed (is this a git checkout?)");
    return out;
#else
    (void)argv_strings;
    throw std::runtime_error("--changed needs git on a POSIX system; pass the files to check instead");
#endif
}

// git names changed files relative to the repository's top; the scan takes them relative to the
// current folder (or absolute when they lie outside it), like files given on the command line.
std::vector<fs::path> git_changed_files() {
    std::string top = run_git({"rev-parse", "--show-toplevel"});
    while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
    const fs::path cwd = fs::current_path();
    std::vector<fs::path> out;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-C", top, "diff", "-z", "--name-only", "--diff-filter=ACMR", "HEAD"},
          std::vector<std::string>{"-C", top, "ls-files", "-z", "--others", "--exclude-standard", "--full-name"}}) {
        std::string listing;
        try {
            listing = run_git(args);
        } catch (const std::runtime_error&) {
            if (args[2] != "diff") throw;  // a repository without commits has no HEAD to diff: only untracked files
        }
        for (std::size_t pos = 0; pos < listing.size();) {
            std::size_t end = listing.find('\0', pos);
            if (end == std::string::npos) end = listing.size();
            if (end > pos) {
                const fs::path absolute = fs::path(top) / listing.substr(pos, end - pos);
                std::error_code ec;
                const fs::path rel = fs::relative(absolute, cwd, ec);
                out.push_back(!ec && !rel.empty() && rel.begin()->string() != ".." ? rel : absolute);
            }
            pos = end + 1;
        }
    }
    return out;
}

std::set<std::string> baseline_fingerprints(const std::string& path) {
    std::set<std::string> out;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(read_file(path));
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path + ": not a JSON report (" + e.what() + "); write one with `mpsport scan --format json -o FILE`");
    }
    // Wrong types name the file and the field, never a bare json type_error.
    const auto bad = [&](const std::string& field, const char* what) {
        return std::runtime_error(path + ": field '" + field + "' must be " + what +
                                  "; a baseline is a JSON report written by `mpsport scan --format json -o FILE`");
    };
    if (!j.is_object()) throw bad("(top level)", "an object");
    if (!j.contains("findings")) throw bad("findings", "present");
    if (!j["findings"].is_array()) throw bad("findings", "an array");
    for (std::size_t i = 0; i < j["findings"].size(); ++i) {
        const auto& f = j["findings"][i];
        const std::string where = "findings[" + std::to_string(i) + "]";
        if (!f.is_object()) throw bad(where, "an object");
        if (!f.contains("fingerprint") || !f["fingerprint"].is_string()) throw bad(where + ".fingerprint", "a string");
        out.insert(f["fingerprint"].get<std::string>());
    }
    return out;
}

// Where the loaded rules are kept between runs (RuleCatalogue::load_cached): $MPSPORT_RULES_CACHE
// ("off": nowhere), else $XDG_CACHE_HOME/mpsport, else ~/.cache/mpsport.
std::optional<fs::path> rules_cache_dir() {
    if (const char* set = std::getenv("MPSPORT_RULES_CACHE")) {
        const std::string value = set;
        if (value == "off" || value == "0") return std::nullopt;
        if (!value.empty()) return fs::path(value);
    }
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "mpsport";
    if (const char* home = std::getenv("HOME"); home && *home == '/') return fs::path(home) / ".cache" / "mpsport";
    return std::nullopt;
}

RuleCatalogue load_rules(const std::optional<std::string>& rules_dir) {
    const fs::path dir = locate_rules_dir(rules_dir ? std::optional<fs::path>(*rules_dir) : std::nullopt);
    const std::optional<fs::path> cache = rules_cache_dir();
    return cache ? RuleCatalogue::load_cached(dir, *cache) : RuleCatalogue::load(dir);
}

RuleCatalogue load_catalogue(const ScanArgs& args) {
    RuleCatalogue catalogue = load_rules(args.rules_dir);
    if (!args.select.empty()) catalogue.select(args.select);
    return catalogue;
}

// What a caller keeps from a scan in the cache folder, under the scan's inputs (ScanOptions::unchanged).
using KeptOutput = std::function<bool(const fs::path& cache_dir, std::uint64_t inputs_id)>;

// The scan behind scan, report, check and explain; nullopt when check --changed finds nothing.
// `kept`: asked, when the inputs are as the last full scan's, whether the caller holds its output.
// `cache_dir`: set to the cache folder the scan used, if any.
struct ScanSetup {
    fs::path base;
    std::vector<fs::path> roots;
    ScanOptions options;
};

// What the arguments ask to scan, and how; nullopt when check --changed finds nothing.
std::optional<ScanSetup> scan_setup(const ScanArgs& args, Mode mode, const KeptOutput& kept) {
    std::vector<fs::path> roots(args.paths.begin(), args.paths.end());
    if (mode == Mode::check && args.changed) {
        auto changed = git_changed_files();
        roots.insert(roots.end(), changed.begin(), changed.end());
        if (roots.empty()) return std::nullopt;  // nothing changed: nothing to check
    }
    if (roots.empty()) {
        if (mode == Mode::check) throw std::runtime_error("check: name the files to check, or pass --changed");
        roots.emplace_back(".");
    }
    for (const auto& r : roots) {
        std::error_code ec;
        if (mode != Mode::check && !fs::exists(r, ec))
            throw std::runtime_error(r.generic_string() + ": no such file or folder");
    }

    // Paths in the report are relative to the scanned folder, or to the current folder for files.
    fs::path base = fs::current_path();
    std::error_code ec;
    if (roots.size() == 1 && fs::is_directory(roots[0], ec)) base = fs::absolute(roots[0]);

    ScanOptions options;
    options.walk.respect_gitignore = !args.no_ignore;
    options.walk.follow_symlinks = args.follow;
    options.walk.exclude = args.exclude;
    options.walk.max_file_size = args.max_file_size;
    options.checkpoints.header_bytes = args.checkpoint_header_limit;
    options.jobs = args.jobs;
    options.full_parse = args.full_parse;
    options.entries = args.entries;
    // check reads a few files of the repository in the current folder: the cache keeps the rest,
    // and the program model reads their facts from it instead of walking the repository again.
    options.partial = mode == Mode::check;
    options.parse_every_native_file = args.full_parse;
    if (!args.no_cache) options.cache_dir = args.cache_dir ? fs::path(*args.cache_dir) : base / ".mpsport_cache";

    if (kept && options.cache_dir) options.unchanged = [&kept, dir = *options.cache_dir](std::uint64_t id) { return kept(dir, id); };
    return ScanSetup{base, std::move(roots), std::move(options)};
}

std::optional<ScanResult> scan_paths(const ScanArgs& args, Mode mode, const RuleCatalogue& catalogue, const KeptOutput& kept = {},
                                     std::optional<fs::path>* cache_dir = nullptr) {
    const Scanner scanner(catalogue, args.target_torch);
    std::optional<ScanSetup> setup = scan_setup(args, mode, kept);
    if (!setup) return std::nullopt;
    if (cache_dir) *cache_dir = setup->options.cache_dir;
    ScanResult result = scanner.scan(setup->base, setup->roots, setup->options);
    result.root = setup->roots.size() == 1 ? setup->roots[0].generic_string() : setup->base.generic_string();
    return result;
}

// A full scan of an unchanged repository whose report the cache folder kept, found before any rule
// is loaded (parsing and checking the rules is most of such a scan): the scan's memo is keyed on the
// rules folder's bytes. nullopt whenever the rules must be loaded: then the scan proper says why.
std::optional<ScanResult> kept_scan(const ScanArgs& args, Mode mode, const KeptOutput& kept) {
    if (mode == Mode::check || args.no_cache || !args.select.empty()) return std::nullopt;
    const fs::path rules_dir = locate_rules_dir(args.rules_dir ? std::optional<fs::path>(*args.rules_dir) : std::nullopt);
    std::uint64_t digest = 0;
    try {
        digest = RuleCatalogue::digest_of(rules_dir);
    } catch (const std::exception&) {
        return std::nullopt;  // loading the rules names the problem
    }
    const std::optional<ScanSetup> setup = scan_setup(args, mode, kept);
    if (!setup) return std::nullopt;
    return Scanner::kept(setup->base, setup->roots, setup->options, ScanCache::key_for(digest, rules_dir, args.target_torch, setup->options));
}

// A rendered report kept in the cache folder: a line with its findings count, worst severity (for
// --output and --fail-on) and the checksum of its text, then the text. A damaged one is not served.
struct KeptReport {
    std::unique_ptr<const MappedFile> file;  // the text is a view of it: a report of megabytes is neither copied nor zeroed
    std::string_view text;
    std::size_t findings = 0;
    std::optional<Severity> worst;

    static std::optional<KeptReport> read(const fs::path& path) {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) return std::nullopt;
        try {
            KeptReport r;
            r.file = std::make_unique<const MappedFile>(path);
            const std::string_view bytes = r.file->bytes();
            const std::size_t eol = bytes.find('\n');
            if (eol == std::string_view::npos) return std::nullopt;
            std::string worst, sum;
            std::istringstream head{std::string(bytes.substr(0, eol))};
            if (!(head >> r.findings >> worst >> sum)) return std::nullopt;
            if (worst != "none" && !(r.worst = parse_severity(worst))) return std::nullopt;
            r.text = bytes.substr(eol + 1);
            if (hex64(content_hash(r.text)) != sum) return std::nullopt;
            return r;
        } catch (const std::exception&) {
            return std::nullopt;  // gone or unreadable: render afresh
        }
    }
    static void write(const fs::path& file, const std::string& text, std::size_t findings, std::optional<Severity> worst) {
        write_file_atomically(file, std::to_string(findings) + " " + (worst ? std::string(to_string(*worst)) : std::string("none")) + " " +
                                        hex64(content_hash(text)) + "\n" + text);
    }
};

void print_timings(const std::vector<std::pair<std::string, double>>& timings, std::chrono::steady_clock::time_point t0,
                   std::chrono::steady_clock::time_point t1, double scan_seconds) {
    const auto t2 = std::chrono::steady_clock::now();
    for (const auto& [name, seconds] : timings) std::cerr << fmt::format("mpsport: {:<16} {:8.3f} s\n", name, seconds);
    std::cerr << fmt::format("mpsport: {:<16} {:8.3f} s\nmpsport: {:<16} {:8.3f} s\n", "report",
                             std::chrono::duration<double>(t2 - t1).count() - scan_seconds, "total",
                             std::chrono::duration<double>(t2 - t0).count());
}

// Prints or writes the report; the exit status of scan, report and check.
int write_report(const ScanArgs& args, std::string_view text, std::size_t findings, bool failed) {
    if (args.output) {
        write_file_atomically(*args.output, text);
        std::cerr << fmt::format("mpsport: wrote {} ({} findings)\n", *args.output, findings);
    } else {
        std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
        std::cout.flush();
    }
    return failed ? 1 : 0;
}

}  // namespace

int run_scan(const ScanArgs& args, Mode mode, bool color) {
    const auto format = parse_format(args.format);
    if (!format) throw std::runtime_error("--format '" + args.format + "' is not one of text, json, sarif, md, html");
    std::optional<Severity> fail_on;
    if (args.fail_on != "none") {
        fail_on = parse_severity(args.fail_on);
        if (!fail_on) throw std::runtime_error("--fail-on '" + args.fail_on + "' is not one of blocker, major, minor, info, none");
    }

    const auto t0 = std::chrono::steady_clock::now();
    // A report of a full scan is kept in the cache folder under the scan's inputs and how it was
    // rendered: a scan of the same, unchanged repository prints it again instead of reading the
    // scan's result and rendering it (a warm scan of an unchanged tree; a baseline or a trace
    // changes the report, and then it is made afresh).
    const bool colored = color && !args.output;
    // The text format prints the scan's own seconds: it is rendered every time.
    const bool keep = !args.baseline && !args.trace && *format != Format::text;
    const auto kept_report = [&](const fs::path& dir, std::uint64_t id) {
        const std::string how = hex64(id) + ":" + args.format + ":" + std::to_string(static_cast<int>(mode)) + (colored ? ":color" : "");
        return dir / ("scan-report-" + hex64(fnv1a64(how)) + ".txt");
    };
    std::optional<KeptReport> reused;
    const KeptOutput kept = [&](const fs::path& dir, std::uint64_t id) {
        if (keep) reused = KeptReport::read(kept_report(dir, id));
        return reused.has_value();
    };
    auto print_reused = [&](const ScanResult& result, std::chrono::steady_clock::time_point t1) {
        if (args.timings) print_timings(result.timings, t0, t1, result.seconds);
        return write_report(args, reused->text, reused->findings, fail_on && reused->worst && *reused->worst >= *fail_on);
    };
    if (keep)
        if (std::optional<ScanResult> scanned = kept_scan(args, mode, kept)) return print_reused(*scanned, t0);

    const RuleCatalogue catalogue = load_catalogue(args);
    const auto t1 = std::chrono::steady_clock::now();
    std::optional<fs::path> cache_dir;
    std::optional<ScanResult> scanned = scan_paths(args, mode, catalogue, kept, &cache_dir);
    if (!scanned) return 0;
    ScanResult& result = *scanned;
    if (args.timings)
        result.timings.insert(result.timings.begin(), {catalogue.from_cache() ? "rules (cached)" : "rules", std::chrono::duration<double>(t1 - t0).count()});
    if (result.reused) return print_reused(result, t1);

    if (args.baseline) {
        const auto known = baseline_fingerprints(*args.baseline);
        result.findings.erase(std::remove_if(result.findings.begin(), result.findings.end(),
                                             [&](const Finding& f) { return known.count(f.fingerprint) > 0; }),
                              result.findings.end());
    }

    std::optional<Evidence> evidence;
    if (args.trace) {
        evidence = read_trace(*args.trace, load_mps_table(catalogue.root(), args.target_torch));
        join_op_evidence(result.findings, *evidence);
        join_remap_evidence(result.findings, *evidence);
    }
    std::optional<Assessment> assessment;
    if (mode == Mode::report) assessment = assess(result.findings, evidence ? &*evidence : nullptr, catalogue, result.file_lines, &result);

    const Report report{result, catalogue, assessment ? &*assessment : nullptr, evidence ? &*evidence : nullptr, MPSPORT_VERSION};
    const std::string text = render(report, *format, colored);
    std::optional<Severity> worst;
    for (const auto& f : result.findings) worst = std::max(worst.value_or(f.severity), f.severity);
    // Kept only when the scan itself came from the memo, so that the report says so (files_cached).
    if (keep && result.inputs_id && result.files_cached == result.files_scanned && cache_dir) {
        try {
            KeptReport::write(kept_report(*cache_dir, result.inputs_id), text, result.findings.size(), worst);
        } catch (const std::exception& e) {
            std::cerr << "mpsport: warning: report not kept in the cache: " << e.what() << "\n";
        }
    }
    if (args.timings) print_timings(result.timings, t0, t1, result.seconds);
    return write_report(args, text, result.findings.size(), fail_on && worst && *worst >= *fail_on);
}

int run_rules(const std::string& id, const std::optional<std::string>& rules_dir) {
    const RuleCatalogue catalogue = load_rules(rules_dir);
    if (id.empty()) {
        std::size_t width = 0;
        for (const auto& r : catalogue.rules()) width = std::max(width, r.id.size());
        for (const auto& r : catalogue.rules())
            std::cout << fmt::format("{:<{}}  {:<7}  {:<11}  {:<8}  {}\n", r.id, width, to_string(r.severity), r.category, r.engine, r.docs.what.substr(0, r.docs.what.find('\n')));
        std::cout << fmt::format("\n{} rules; `mpsport rules ID` explains one.\n", catalogue.rules().size());
        return 0;
    }
    const Rule* r = catalogue.find(id);
    if (!r) {
        std::cerr << "mpsport: no rule '" << id << "'; `mpsport rules` lists them\n";
        return 2;
    }
    std::cout << fmt::format("{}\n{}\n\nseverity: {}   category: {}   verdict impact: {}   engine: {}\n", r->id, std::string(r->id.size(), '='),
                             to_string(r->severity), r->category, to_string(r->impact), r->engine);
    std::cout << fmt::format("effort: {}-{} h per {}", r->effort.low, r->effort.high, r->effort.per);
    if (r->effort.setup_high > 0) std::cout << fmt::format(" + {}-{} h setup per file", r->effort.setup_low, r->effort.setup_high);
    if (r->effort.cap_high > 0) std::cout << fmt::format(", capped at {} h", r->effort.cap_high);
    std::cout << "\n\n## What it does\n" << r->docs.what << "\n\n## Why is this bad?\n" << r->docs.why << "\n\n## Example\n" << r->docs.example
              << "\n\n## Fix\n" << r->fix << "\n";
    if (!r->references.empty()) {
        std::cout << "\n## References\n";
        for (const auto& ref : r->references) std::cout << "- " << ref << "\n";
    }
    return 0;
}

}  // namespace mpsport::cli

namespace mpsport::cli {

int run_explain(const std::string& fingerprint, const ScanArgs& args) {
    const RuleCatalogue catalogue = load_catalogue(args);
    const std::optional<ScanResult> result = scan_paths(args, Mode::report, catalogue);
    const Finding* found = nullptr;
    for (const auto& f : result->findings)
        if (f.fingerprint == fingerprint) found = &f;
    if (!found) {
        std::cerr << "mpsport: no finding with fingerprint " << fingerprint << " in " << result->root
                  << " (fingerprints come from `mpsport scan --format json`; scan the same folder with the same options)\n";
        return 2;
    }
    const Finding& f = *found;
    std::cout << fmt::format("{}:{}:{} {} {}\n  {}\n\n", f.location.path, f.location.line, f.location.col, f.rule_id, to_string(f.severity), f.message);
    std::cout << fmt::format("reach: {}\n", to_string(f.reach));
    if (!f.chain.empty()) {
        std::cout << "import chain from an entry point:\n";
        for (std::size_t i = 0; i < f.chain.size(); ++i) std::cout << fmt::format("  {}{}\n", std::string(i * 2, ' '), f.chain[i]);
    } else if (f.reach == Reach::unreached) {
        std::cout << "no entry point reaches this file; if it runs, name the real entry point with --entry FILE\n";
    }
    if (f.guard != GuardKind::none) std::cout << fmt::format("guard: {} `{}`\n", to_string(f.guard), f.guard_note);
    std::cout << fmt::format("weight: {}/{} (rule: {}/{})\n", to_string(f.severity), to_string(f.impact), to_string(f.rule_severity),
                             to_string(f.rule_impact));
    if (!f.note.empty()) std::cout << "why: " << f.note << "\n";
    for (const auto& rel : f.related) std::cout << fmt::format("related: {}:{} ({})\n", rel.location.path, rel.location.line, rel.label);
    std::cout << "\n";
    return run_rules(f.rule_id, args.rules_dir);
}

}  // namespace mpsport::cli
