#include "analyzer/cuda/translation_unit.hpp"

#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include "analyzer/cuda/clang_rules.hpp"
#include "analyzer/cuda/shim.hpp"

namespace fs = std::filesystem;

namespace mpsport::cuda {
namespace {

// Virtual paths: nothing on disk lives under them.
constexpr const char* kShimPath = "/__mpsport__/shim/mpsport_cuda_shim.h";
constexpr const char* kMissingDir = "/__mpsport__/missing";
constexpr const char* kPrefixPath = "/__mpsport__/shim/mpsport_prefix.h";

// What the precompiled prefix holds besides the shim: the standard headers that extension sources
// include most. They were most of a typical file's parse (gsplat's kernels: <algorithm>, <variant>,
// <tuple>, <vector>); loaded from the prefix they cost a fraction. A file's own `#include <vector>`
// is then a no-op (its guard is defined), and a file that includes none of them sees their names
// too, which only ever turns an undeclared-name error into a declaration.
constexpr const char* kPrefixHeaders[] = {
    "algorithm", "array",   "atomic",  "cassert",       "cfloat",        "climits", "cmath",  "cstddef", "cstdint",
    "cstdio",    "cstdlib", "cstring", "functional",    "iostream",      "limits",  "map",    "memory",  "mutex",
    "numeric",   "optional", "set",    "sstream",       "string",        "tuple",   "type_traits", "unordered_map",
    "unordered_set", "utility", "variant", "vector",    "stdexcept",     "iterator", "initializer_list"};

std::string prefix_text(bool cuda) {
    std::string text;
    // Clang's CUDA wrappers of <algorithm> and <new> need these before the standard headers; the
    // shim defines them again, the same.
    if (cuda) text += "#include <stdlib.h>\n#define __host__ __attribute__((host))\n#define __device__ __attribute__((device))\n";
    for (const char* h : kPrefixHeaders) text += std::string("#include <") + h + ">\n";
    return text + "#include \"" + kShimPath + "\"\n";
}

// How much header text one translation unit may read. A vendored library with generated tables
// (cuFFTDx's 34 MB database) costs half a minute per file that includes it; past the budget every
// further header reads as empty, like a missing one, and the file's own lines are still analysed.

struct IncludeBudget {
    std::size_t used = 0;
    bool exceeded = false;
    // Whether a header of `size` bytes may still be read.
    bool take(std::size_t size) {
        if (used + size > kIncludeBudgetBytes) return !(exceeded = true);
        used += size;
        return true;
    }
};

// An empty header, or the repository header it stands for.
class EmptyFile : public llvm::vfs::File {
public:
    explicit EmptyFile(llvm::vfs::Status st, std::unique_ptr<llvm::MemoryBuffer> content = nullptr)
        : m_status(std::move(st)), m_content(std::move(content)) {}
    llvm::ErrorOr<llvm::vfs::Status> status() override { return m_status; }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine& name, int64_t, bool, bool) override {
        if (m_content) return llvm::MemoryBuffer::getMemBufferCopy(m_content->getBuffer(), name.str());
        return llvm::MemoryBuffer::getMemBuffer("", name.str());
    }
    std::error_code close() override { return {}; }

private:
    llvm::vfs::Status m_status;
    std::unique_ptr<llvm::MemoryBuffer> m_content;
};

// The last include directory: a header found on no include path is the repository's header whose
// path ends the same way, or else an empty file, so a missing include (the CUDA toolkit, torch, a
// generated header) costs its declarations, never the file.
class MissingIncludeFs : public llvm::vfs::FileSystem {
public:
    MissingIncludeFs(const std::vector<std::string>* repo_headers, IncludeBudget& budget) : m_headers(repo_headers), m_budget(budget) {}

    // Every path below the folder is a folder when asked for its status (the parents of
    // "a/b/c.h") and an empty file when opened (the header itself).
    llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
        const std::string p = path.str();
        if (!below(p)) return std::make_error_code(std::errc::no_such_file_or_directory);
        return make_status(p, llvm::sys::fs::file_type::directory_file);
    }
    llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
        const std::string p = path.str();
        if (!below(p) || p == kMissingDir) return std::make_error_code(std::errc::no_such_file_or_directory);
        const std::string tail = p.substr(std::string(kMissingDir).size());  // "/utils/helpers.cuh"
        if (m_headers) {
            for (const std::string& h : *m_headers) {
                if (h.size() < tail.size() || h.compare(h.size() - tail.size(), tail.size(), tail) != 0) continue;
                if (auto buffer = llvm::MemoryBuffer::getFile(h)) {
                    if (!m_budget.take((*buffer)->getBufferSize())) break;
                    auto st = make_status(p, llvm::sys::fs::file_type::regular_file, (*buffer)->getBufferSize());
                    return std::unique_ptr<llvm::vfs::File>(new EmptyFile(st, std::move(*buffer)));
                }
            }
        }
        return std::unique_ptr<llvm::vfs::File>(new EmptyFile(make_status(p, llvm::sys::fs::file_type::regular_file)));
    }
    llvm::vfs::directory_iterator dir_begin(const llvm::Twine&, std::error_code& ec) override {
        ec = {};
        return {};
    }
    std::error_code setCurrentWorkingDirectory(const llvm::Twine&) override { return {}; }
    llvm::ErrorOr<std::string> getCurrentWorkingDirectory() const override { return std::string("/"); }

private:
    const std::vector<std::string>* m_headers;
    IncludeBudget& m_budget;
    static bool below(const std::string& p) { return p == kMissingDir || p.rfind(std::string(kMissingDir) + "/", 0) == 0; }
    static llvm::vfs::Status make_status(const std::string& p, llvm::sys::fs::file_type type, std::uint64_t size = 0) {
        // A distinct id per name: the file manager treats equal ids as one file.
        return llvm::vfs::Status(p, llvm::sys::fs::UniqueID(0x6d7073, std::hash<std::string>()(p)), {}, 0, 0, size, type, llvm::sys::fs::perms::all_read);
    }
};

// The real file system without installed PyTorch and pybind11 headers: the shim stands for them, so
// the rules see the same names whether or not a torch is installed, and a file does not cost the
// seconds torch/extension.h takes to parse (docs/clang-engine.md).
class WithoutTorchHeaders : public llvm::vfs::ProxyFileSystem {
public:
    // `prefix`: the precompiled prefix, which is no header and on no budget.
    WithoutTorchHeaders(IncludeBudget& budget, std::string prefix)
        : ProxyFileSystem(llvm::vfs::getRealFileSystem()), m_budget(budget), m_prefix(std::move(prefix)) {}
    llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
        if (hidden(path.str())) return std::make_error_code(std::errc::no_such_file_or_directory);
        return ProxyFileSystem::status(path);
    }
    llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
        if (hidden(path.str())) return std::make_error_code(std::errc::no_such_file_or_directory);
        auto file = ProxyFileSystem::openFileForRead(path);
        if (!file) return file;
        auto st = (*file)->status();
        if (!st || st->isDirectory() || installed(path.str()) || path.str() == m_prefix || m_budget.take(st->getSize())) return file;
        return std::unique_ptr<llvm::vfs::File>(new EmptyFile(llvm::vfs::Status::copyWithNewSize(*st, 0)));
    }

private:
    IncludeBudget& m_budget;
    std::string m_prefix;
    // The standard library and Clang's own headers: not the repository's, so not on its budget.
    // The driver finds GCC's headers from its own folder, which for an argv[0] of "clang" is "/":
    // libstdc++ is opened as "/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/vector".
    // Those paths once counted on the budget: a file read with the prefix as text had ~2 MB less
    // of its repository's headers than one read with the precompiled prefix.
    static bool installed(const std::string& p) {
        if (p.rfind("/../", 0) == 0) return true;
        for (const char* dir : {"/usr/", "/lib/", "/lib64/", "/Library/", "/Applications/", "/opt/homebrew/"})
            if (p.rfind(dir, 0) == 0) return true;
        return false;
    }
    static bool hidden(const std::string& p) {
        for (const char* dir : {"/include/torch/", "/include/ATen/", "/include/c10/", "/include/pybind11/", "/include/THC/",
                                "/include/TH/", "/include/caffe2/", "/torch/csrc/api/include/"})
            if (p.find(dir) != std::string::npos) return true;
        return false;
    }
};

class Diagnostics : public clang::DiagnosticConsumer {
public:
    void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& d) override {
        DiagnosticConsumer::HandleDiagnostic(level, d);
        // MPSPORT_CLANG_DIAGNOSTICS=1: every error, for whoever extends the shim (shim.cpp).
        static const bool show = std::getenv("MPSPORT_CLANG_DIAGNOSTICS") != nullptr;
        if (show && level >= clang::DiagnosticsEngine::Error && d.hasSourceManager() && d.getLocation().isValid()) {
            llvm::SmallString<160> text;
            d.FormatDiagnostic(text);
            llvm::errs() << d.getLocation().printToString(d.getSourceManager()) << ": " << text << "\n";
        }
        if (level < clang::DiagnosticsEngine::Error || !m_first_fatal.empty()) return;
        llvm::SmallString<160> text;
        d.FormatDiagnostic(text);
        if (level == clang::DiagnosticsEngine::Fatal) {
            m_first_fatal = text.str().str();
            if (d.hasSourceManager() && d.getLocation().isValid())
                m_first_fatal = "line " + std::to_string(d.getSourceManager().getPresumedLineNumber(d.getLocation())) + ": " + m_first_fatal;
        } else if (m_first_error.empty()) {
            m_first_error = text.str().str();
        }
    }
    const std::string& first_fatal() const { return m_first_fatal; }
    const std::string& first_error() const { return m_first_error; }

private:
    std::string m_first_fatal, m_first_error;
};

// One matcher rule's callback: the node bound to "finding", named and measured.
class MatchRecorder : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
    MatchRecorder(const Rule& rule, CheckOutput& out) : m_rule(rule), m_out(out) {}
    void run(const clang::ast_matchers::MatchFinder::MatchResult& result) override {
        const auto& nodes = result.Nodes.getMap();
        auto it = nodes.find("finding");
        if (it == nodes.end()) return;
        const clang::DynTypedNode& node = it->second;
        std::map<std::string, std::string> captures;
        clang::SourceLocation begin = node.getSourceRange().getBegin(), end = node.getSourceRange().getEnd();
        if (const auto* decl = node.get<clang::NamedDecl>()) {
            captures["name"] = decl->getQualifiedNameAsString();
            begin = end = decl->getLocation();  // the name, not the attributes and templates before it
            if (const auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl); fn && fn->hasBody()) {
                const auto& sm = *result.SourceManager;
                const auto first = sm.getExpansionLoc(fn->getBeginLoc()), last = sm.getExpansionLoc(fn->getBody()->getEndLoc());
                captures["lines"] = std::to_string(sm.getExpansionLineNumber(last) - sm.getExpansionLineNumber(first) + 1);
            }
        } else if (const auto* call = node.get<clang::CallExpr>()) {
            if (const auto* callee = call->getDirectCallee()) captures["name"] = callee->getQualifiedNameAsString();
        } else if (const auto* lookup = node.get<clang::OverloadExpr>()) {
            captures["name"] = lookup->getName().getAsString();
        } else if (const auto* ref = node.get<clang::DeclRefExpr>()) {
            captures["name"] = ref->getDecl()->getQualifiedNameAsString();
        }
        m_out.add(m_rule, begin, end, std::move(captures));
    }

private:
    const Rule& m_rule;
    CheckOutput& m_out;
};

class IncludeRecorder : public clang::PPCallbacks {
public:
    IncludeRecorder(const ClangRules& rules, CheckOutput& out, const clang::SourceManager& sm) : m_rules(rules), m_out(out), m_sm(sm) {}
    void InclusionDirective(clang::SourceLocation hash, const clang::Token&, llvm::StringRef name, bool, clang::CharSourceRange range,
                            const clang::FileEntry*, llvm::StringRef, llvm::StringRef, const clang::Module*,
                            clang::SrcMgr::CharacteristicKind) override {
        if (!m_sm.isWrittenInMainFile(hash)) return;
        for (const auto& c : m_rules.checks) c.check->on_include(name, hash, range.getEnd(), m_out);
    }

private:
    const ClangRules& m_rules;
    CheckOutput& m_out;
    const clang::SourceManager& m_sm;
};

class Consumer : public clang::ASTConsumer {
public:
    Consumer(const ClangRules& rules, CheckOutput& out) : m_rules(rules), m_out(out) {}
    // The bodies of functions in the standard library, Clang's own headers, the shim and -isystem
    // folders are skipped, as clangd does for a preamble: no rule reports there and no check follows
    // calls into them. The repository's headers, found directly or by their path's tail, keep the
    // bodies of their free functions: native-op-devices follows a binding's calls into them. It
    // never follows a call into a class member, so the bodies of member functions outside the main
    // file are skipped too (a template library's headers are mostly those: safari's vendored
    // cuFFTDx took 4 s per file with them). A binding to a member defined in a header is linked by
    // name to that header's own translation unit instead. Kernels and device-only functions in headers
    // (cuFFTDx's 34 MB of inline PTX) are skipped as well: a host binding cannot call them, and a
    // launch is seen where it is written. Lambda bodies are kept. Clang never skips
    // a constexpr body or one whose return type is deduced (Sema::canSkipFunctionBody).
    bool shouldSkipFunctionBody(clang::Decl* d) override {
        const auto& sm = d->getASTContext().getSourceManager();
        const clang::SourceLocation at = sm.getExpansionLoc(d->getLocation());
        if (sm.isInSystemHeader(at) && !sm.getFilename(at).startswith(kMissingDir)) return true;
        if (sm.isWrittenInMainFile(at)) return false;
        const clang::FunctionDecl* fn = d->getAsFunction();
        if (!fn) return false;
        if (fn->hasAttr<clang::CUDAGlobalAttr>() || (fn->hasAttr<clang::CUDADeviceAttr>() && !fn->hasAttr<clang::CUDAHostAttr>())) return true;
        const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(fn);
        return method && !method->getParent()->isLambda();
    }
    // Only what the main file declares is traversed: the shim and the system headers hold nothing
    // to report and most of the AST. The declarations are taken as the parser hands them over:
    // asking the translation unit for its declarations afterwards would read every declaration of
    // the precompiled prefix back from it (the standard library), about a tenth of a file's time.
    // Sema hands over each function template instantiation it defines here too; those are traversed
    // from their template, as before.
    bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
        for (clang::Decl* d : group) {
            if (!d->getLexicalDeclContext()->isTranslationUnit()) continue;
            if (const auto* fn = llvm::dyn_cast<clang::FunctionDecl>(d); fn && fn->isTemplateInstantiation()) continue;
            const auto& sm = d->getASTContext().getSourceManager();
            if (sm.isWrittenInMainFile(sm.getExpansionLoc(d->getLocation()))) m_scope.push_back(d);
        }
        return true;
    }
    void HandleTranslationUnit(clang::ASTContext& ctx) override {
        std::vector<clang::Decl*>& scope = m_scope;
        ctx.setTraversalScope(scope);
        clang::ast_matchers::MatchFinder finder;
        std::vector<std::unique_ptr<MatchRecorder>> recorders;
        for (const auto& mr : m_rules.matchers) {
            if (!reads_kind(*mr.rule, m_out.kind)) continue;
            recorders.push_back(std::make_unique<MatchRecorder>(*mr.rule, m_out));
            for (const auto& m : mr.matchers) finder.addDynamicMatcher(m, recorders.back().get());
        }
        finder.matchAST(ctx);
        for (const auto& c : m_rules.checks) c.check->on_ast(ctx, scope, m_out);
    }

private:
    const ClangRules& m_rules;
    CheckOutput& m_out;
    std::vector<clang::Decl*> m_scope;
};

class Action : public clang::ASTFrontendAction {
public:
    Action(const ClangRules& rules, CheckOutput& out, bool& ran) : m_rules(rules), m_out(out), m_ran(ran) {}
    bool BeginInvocation(clang::CompilerInstance& ci) override {
        ci.getFrontendOpts().SkipFunctionBodies = true;  // asks Consumer::shouldSkipFunctionBody, body by body
        return true;
    }
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
        m_ran = true;
        m_out.sm = &ci.getSourceManager();
        m_out.lang = &ci.getLangOpts();
        ci.getPreprocessor().addPPCallbacks(std::make_unique<IncludeRecorder>(m_rules, m_out, ci.getSourceManager()));
        return std::make_unique<Consumer>(m_rules, m_out);
    }

private:
    const ClangRules& m_rules;
    CheckOutput& m_out;
    bool& m_ran;
};


// The driver's flags for one language, before any prefix, include path or file.
std::vector<std::string> language_args(bool cuda) {
    // -fno-spell-checking: with the toolkit's headers missing, typo correction would turn an undeclared
    // hipGetDevice into the shim's cudaGetDevice (a false match), and it is slow on error-heavy files.
    std::vector<std::string> args = {"clang", "-fsyntax-only", "-w", "-ferror-limit=0", "-fno-spell-checking", "-fno-color-diagnostics",
                                     "-fno-caret-diagnostics", "-std=c++17"};
#ifdef MPSPORT_CLANG_RESOURCE_DIR
    std::error_code ec;
    if (fs::is_directory(MPSPORT_CLANG_RESOURCE_DIR, ec)) args.push_back("-resource-dir=" MPSPORT_CLANG_RESOURCE_DIR);
#endif
    if (cuda) {
        for (const char* a : {"-xcuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version"}) args.push_back(a);
    } else {
        args.push_back("-xc++");
    }
    return args;
}

// The shim and the prefix that includes it, in memory: every parse mounts them.
llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> prefix_files(bool cuda) {
    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memory->addFile(kShimPath, 0, llvm::MemoryBuffer::getMemBuffer(shim_header()));
    memory->addFile(kPrefixPath, 0, llvm::MemoryBuffer::getMemBufferCopy(prefix_text(cuda)));
    return memory;
}

std::vector<std::string> command_line(const TuInput& in, bool cuda) {
    std::vector<std::string> args = language_args(cuda);
    if (in.prefix_pch.empty()) {
        args.insert(args.end(), {"-include", kPrefixPath});  // the same prefix, read as text
    } else {
        // Not validated against this file's -D/-I: the prefix was built with none, and what a file's
        // own macros would change in the standard headers does not matter to any rule.
        args.insert(args.end(), {"-include-pch", in.prefix_pch, "-Xclang", "-fno-validate-pch"});
    }
    args.insert(args.end(), in.flags.begin(), in.flags.end());
    args.insert(args.end(), {"-idirafter", kMissingDir, in.absolute.string()});
    return args;
}

}  // namespace

clang::SourceLocation user_location(clang::SourceLocation loc, const clang::SourceManager& sm) {
    if (!loc.isMacroID()) return loc;
    const clang::SourceLocation spelling = sm.getSpellingLoc(loc);
    if (sm.isWrittenInMainFile(spelling)) return spelling;
    // Up the chain of expansions, through a macro argument to where it is written: a
    // C10_CUDA_KERNEL_LAUNCH_CHECK() inside the lambda handed to flash-attention's EVENK_SWITCH is on
    // its own line, not on the switch's (the outermost expansion).
    const clang::SourceLocation file = sm.getFileLoc(loc);
    if (sm.isWrittenInMainFile(file)) return file;
    return sm.getExpansionLoc(loc);
}

bool is_user_code(clang::SourceLocation loc, const clang::SourceManager& sm) {
    const clang::SourceLocation at = sm.getExpansionLoc(loc);
    if (sm.isWrittenInMainFile(at)) return true;
    const llvm::StringRef file = sm.getFilename(at);
    if (file.startswith(kMissingDir)) return true;  // a repository header found by its path's tail (or an empty one)
    if (file.startswith("/__mpsport__/")) return false;
    return !sm.isInSystemHeader(at);
}

bool CheckOutput::add(const Rule& rule, clang::SourceLocation begin, clang::SourceLocation end, std::map<std::string, std::string> captures) {
    begin = user_location(begin, *sm);
    end = user_location(end, *sm);
    if (!sm->isWrittenInMainFile(begin)) return false;
    const std::size_t from = sm->getFileOffset(begin);
    std::size_t to = from + clang::Lexer::MeasureTokenLength(begin, *sm, *lang);
    if (end.isValid() && sm->isWrittenInMainFile(end) && sm->getFileOffset(end) >= from)
        to = std::max<std::size_t>(to, sm->getFileOffset(end) + clang::Lexer::MeasureTokenLength(end, *sm, *lang));
    // Template instantiations and several matchers of one rule meet at the same place: report it once.
    for (const auto& m : matches)
        if (m.rule == &rule && m.begin == from) return false;
    const llvm::StringRef buffer = sm->getBufferData(sm->getMainFileID());
    captures["finding"] = buffer.substr(from, to - from).str();
    Match m;
    m.rule = &rule;
    m.begin = from;
    m.end = to;
    m.captures = std::move(captures);
    matches.push_back(std::move(m));
    return true;
}

namespace {

// Writes the PCH to the path given, with every function body it may skip skipped (the default
// answer of ASTConsumer::shouldSkipFunctionBody), as clangd builds a preamble.
class PrefixAction : public clang::GeneratePCHAction {
public:
    explicit PrefixAction(std::string output) : m_output(std::move(output)) {}
    bool BeginInvocation(clang::CompilerInstance& ci) override {
        ci.getFrontendOpts().OutputFile = m_output;
        ci.getFrontendOpts().SkipFunctionBodies = true;
        return GeneratePCHAction::BeginInvocation(ci);
    }

private:
    std::string m_output;
};

}  // namespace

std::string build_prefix(const std::string& output, bool cuda) {
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
    overlay->pushOverlay(prefix_files(cuda));
    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
    // The prefix itself is the file, read as a header (it includes the shim)
    std::vector<std::string> args = language_args(cuda);
    if (!cuda) args.push_back("-xc++-header");
    args.push_back(kPrefixPath);
    Diagnostics diags;
    clang::tooling::ToolInvocation invocation(args, std::make_unique<PrefixAction>(output), files.get());
    invocation.setDiagnosticConsumer(&diags);
    const bool ok = invocation.run();
    if (!diags.first_fatal().empty()) return diags.first_fatal();
    if (!diags.first_error().empty()) return diags.first_error();
    if (!ok) return "Clang could not write the prefix";
    return {};
}

TuResult run_translation_unit(const ClangRules& rules, const TuInput& in) {
    const bool cuda = parses_as_cuda(in.kind, *in.text);
    auto memory = prefix_files(cuda);
    memory->addFile(in.absolute.string(), 0, llvm::MemoryBuffer::getMemBufferCopy(*in.text));
    IncludeBudget budget;
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::makeIntrusiveRefCnt<WithoutTorchHeaders>(budget, in.prefix_pch));
    overlay->pushOverlay(memory);
    overlay->pushOverlay(llvm::makeIntrusiveRefCnt<MissingIncludeFs>(in.repo_headers, budget));
    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

    CheckOutput out;
    out.kind = cuda ? FileKind::cuda : FileKind::cpp;
    bool ran = false;
    Diagnostics diags;
    clang::tooling::ToolInvocation invocation(command_line(in, cuda), std::make_unique<Action>(rules, out, ran), files.get());
    invocation.setDiagnosticConsumer(&diags);
    invocation.run();

    TuResult result;
    if (!ran) {
        result.skip_reason = "Clang could not set up this translation unit: " + (diags.first_fatal().empty() ? diags.first_error() : diags.first_fatal());
    } else if (!diags.first_fatal().empty()) {
        result.skip_reason = "Clang stopped at a fatal error, " + diags.first_fatal();
    } else {
        result.matches = std::move(out.matches);
        result.facts = std::move(out.facts);
        result.facts.includes_truncated = budget.exceeded;
    }
    return result;
}

std::string clang_version() { return CLANG_VERSION_STRING; }

}  // namespace mpsport::cuda

extern "C" const mpsport::cuda::ClangApi* mpsport_clang_api() {
    static const mpsport::cuda::ClangApi api{&mpsport::cuda::compile_clang_rules, &mpsport::cuda::run_translation_unit,
                                             &mpsport::cuda::clang_version, &mpsport::cuda::build_prefix};
    return &api;
}

namespace mpsport::cuda {

}  // namespace mpsport::cuda
