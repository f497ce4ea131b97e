// The C++ checks, for what a matcher cannot say: which library an #include brings in (a matcher
// sees no preprocessor), and which device paths each registered op has (a walk over registrations,
// their bound functions and the is_cuda() branches in them). Registered in registered_checks().
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <set>

#include "analyzer/cuda/clang_rules.hpp"

namespace mpsport::cuda {
namespace {

// ---- library-includes: rule params map a library name to header names or folder prefixes ---------

class LibraryIncludes : public Check {
public:
    explicit LibraryIncludes(const std::vector<const Rule*>& rules) : m_rules(rules) {}
    void on_include(llvm::StringRef written, clang::SourceLocation hash, clang::SourceLocation end, CheckOutput& out) override {
        for (const Rule* rule : m_rules) {
            if (!reads_kind(*rule, out.kind)) continue;
            for (const auto& [library, headers] : rule->params) {
                const bool hit = std::any_of(headers.begin(), headers.end(), [&](const std::string& h) {
                    return h.back() == '/' ? written.startswith(h) : written == h;
                });
                if (hit) out.add(*rule, hash, end, {{"library", library}, {"header", written.str()}});
            }
        }
    }

private:
    std::vector<const Rule*> m_rules;
};

// ---- native-op-devices: registrations and the device paths of what they bind --------------------

const clang::Expr* bare(const clang::Expr* e) {
    while (e) {
        e = e->IgnoreParenImpCasts();
        if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
            e = u->getSubExpr();
            continue;
        }
        if (const auto* c = llvm::dyn_cast<clang::CXXConstructExpr>(e); c && c->getNumArgs() == 1) {
            e = c->getArg(0);
            continue;
        }
        if (const auto* m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
            e = m->getSubExpr();
            continue;
        }
        if (const auto* b = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) {
            e = b->getSubExpr();
            continue;
        }
        break;
    }
    return e;
}

// A declaration's name when it is a plain identifier, else empty: an operator, a constructor or a
// conversion has none, and NamedDecl::getName() asserts on them (found by the sanitizer build,
// which keeps LLVM's header assertions on).
llvm::StringRef plain_name(const clang::NamedDecl* d) {
    return d && d->getIdentifier() ? d->getName() : llvm::StringRef();
}

std::string string_literal(const clang::Expr* e) {
    if (const auto* s = llvm::dyn_cast_or_null<clang::StringLiteral>(bare(e))) return s->getString().str();
    return {};
}

std::string callee_name(const clang::CallExpr* call) {
    const auto* fn = call->getDirectCallee();
    return fn ? fn->getQualifiedNameAsString() : std::string();
}

bool mentions_method(const clang::Stmt* s, llvm::StringRef method) {
    if (!s) return false;
    if (const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(s))
        if (const auto* m = call->getMethodDecl(); m && plain_name(m) == method) return true;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        if (plain_name(ref->getDecl()) == (method == "is_cuda" ? "kCUDA" : "kCPU")) return true;
        // `x.device().type() == c10::DeviceType::CUDA`
        if (const auto* e = llvm::dyn_cast<clang::EnumConstantDecl>(ref->getDecl()))
            if (const auto* en = llvm::dyn_cast<clang::EnumDecl>(e->getDeclContext()); en && plain_name(en) == "DeviceType")
                if (plain_name(e) == (method == "is_cuda" ? "CUDA" : "CPU")) return true;
    }
    for (const clang::Stmt* child : s->children())
        if (mentions_method(child, method)) return true;
    return false;
}

bool negated(const clang::Expr* cond) {
    // explicit casts too: TORCH_CHECK and AT_ASSERTM wrap their condition in static_cast<bool>(...)
    const clang::Expr* e = cond->IgnoreParenCasts();
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) return u->getOpcode() == clang::UO_LNot;
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) return b->getOpcode() == clang::BO_NE;
    if (const auto* o = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) return o->getOperator() == clang::OO_ExclaimEqual;
    return false;
}

// Which side of a device test each branch is on; nullopt when the condition tests no device.
std::optional<std::pair<Branch, Branch>> device_test(const clang::Expr* cond) {
    if (!cond) return std::nullopt;
    const bool cuda = mentions_method(cond, "is_cuda"), cpu = mentions_method(cond, "is_cpu");
    if (!cuda && !cpu) return std::nullopt;
    bool then_cuda = cuda;
    if (negated(cond)) then_cuda = !then_cuda;
    return then_cuda ? std::make_pair(Branch::cuda, Branch::cpu) : std::make_pair(Branch::cpu, Branch::cuda);
}

bool ends_in_exit(const clang::Stmt* s) {
    if (!s) return false;
    if (llvm::isa<clang::ReturnStmt>(s) || llvm::isa<clang::CXXThrowExpr>(s)) return true;
    if (const auto* e = llvm::dyn_cast<clang::Expr>(s))  // AT_ERROR(...), TORCH_CHECK(false, ...) helpers, abort()
        if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e->IgnoreImplicit()); call && call->getDirectCallee() && call->getDirectCallee()->isNoReturn())
            return true;
    if (const auto* c = llvm::dyn_cast<clang::CompoundStmt>(s)) return !c->body_empty() && ends_in_exit(c->body_back());
    return false;
}

bool in_namespace(const clang::FunctionDecl* fn, std::initializer_list<const char*> prefixes) {
    const std::string q = fn->getQualifiedNameAsString();
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const char* p) { return q.rfind(p, 0) == 0; });
}

struct BodyFacts {
    bool cuda = false;  // launches a kernel, calls the CUDA runtime or torch's CUDA API, or requires CUDA tensors
    bool cpu = false;   // does work on the CPU side of a device test
    bool aten = false;  // calls PyTorch ops
    bool indirect = false;  // calls through a function pointer or registry
    // TORCH_CHECK(x.is_cuda()) outside any device branch: the binding takes CUDA tensors only, so what
    // it calls runs on their behalf (nvdiffrec's bindings call a launch-size helper of common.cpp).
    bool gated = false;
    std::vector<Callee> callees;
};

// Walks a function body with the branch each statement is on, into the functions this file defines.
class BodyWalker {
public:
    BodyWalker(const clang::SourceManager& sm, BodyFacts& out) : m_sm(sm), m_out(out) {}

    void function(const clang::FunctionDecl* fn, Branch branch, int depth) {
        if (!fn || depth > 4 || !m_seen.insert({fn->getCanonicalDecl(), branch}).second) return;
        const clang::FunctionDecl* def = nullptr;
        if (!fn->hasBody(def) || !def->getBody()) return;
        stmt(def->getBody(), branch, depth);
    }

private:
    void stmt(const clang::Stmt* s, Branch branch, int depth) {
        if (!s) return;
        if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(s)) {
            // After `if (x.is_cuda()) { ...; return ...; }` the rest of the block is the other side.
            for (const clang::Stmt* child : block->body()) {
                stmt(child, branch, depth);
                if (const auto* i = llvm::dyn_cast<clang::IfStmt>(child); i && !i->getElse() && ends_in_exit(i->getThen()))
                    if (auto sides = device_test(i->getCond())) branch = sides->second;
            }
            return;
        }
        if (const auto* i = llvm::dyn_cast<clang::IfStmt>(s)) {
            if (auto sides = device_test(i->getCond())) {
                stmt(i->getThen(), sides->first, depth);
                stmt(i->getElse(), sides->second, depth);
                return;
            }
        }
        if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(s)) {
            if (auto sides = device_test(c->getCond())) {
                stmt(c->getTrueExpr(), sides->first, depth);
                stmt(c->getFalseExpr(), sides->second, depth);
                return;
            }
        }
        if (const auto* lambda = llvm::dyn_cast<clang::LambdaExpr>(s)) {
            stmt(lambda->getBody(), branch, depth);
            return;
        }
        if (llvm::isa<clang::CUDAKernelCallExpr>(s)) {
            m_out.cuda = true;
        } else if (const auto* call = llvm::dyn_cast<clang::CallExpr>(s)) {
            if (call_is_done(call, branch, depth)) return;
        }
        for (const clang::Stmt* child : s->children()) stmt(child, branch, depth);
    }

    // True when the call needs no look inside its arguments.
    bool call_is_done(const clang::CallExpr* call, Branch branch, int depth) {
        const clang::FunctionDecl* fn = call->getDirectCallee();
        if (!fn) {
            if (!call->getCallee()->isTypeDependent()) m_out.indirect = true;
            return false;
        }
        const std::string name = fn->getQualifiedNameAsString();
        if (name == "c10::detail::torch_check") {
            // TORCH_CHECK(x.is_cuda()) says the binding wants CUDA tensors.
            if (call->getNumArgs() > 0 && mentions_method(call->getArg(0), "is_cuda") && !negated(bare(call->getArg(0)))) {
                m_out.cuda = true;
                if (branch == Branch::any && !mentions_method(call->getArg(0), "is_cpu")) m_out.gated = true;
            }
            return true;
        }
        if (name == "c10::detail::torch_check_fail") return true;  // AT_ERROR: the branch has no implementation
        const bool user = is_user_code(fn->getLocation(), m_sm);
        if (in_namespace(fn, {"at::cuda::", "c10::cuda::"}) || (!user && plain_name(fn).startswith("cuda"))) {
            m_out.cuda = true;
            return false;
        }
        // The C library and the standard library do real work on the CPU side (pytorch3d's pulsar
        // copies with memcpy where CUDA copies with cudaMemcpyAsync).
        if (branch == Branch::cpu && !user && !fn->isNoReturn() && !in_namespace(fn, {"at::", "torch::", "c10::", "pybind11::"}))
            m_out.cpu = true;
        if (in_namespace(fn, {"at::", "torch::", "c10::"})) {
            m_out.aten = true;
            if (branch == Branch::cpu) m_out.cpu = true;
            return false;
        }
        if (!user || fn->isCXXClassMember()) return false;
        const clang::FunctionDecl* def = nullptr;
        if (fn->hasBody(def) && is_user_code(def->getLocation(), m_sm)) {
            if (branch == Branch::cpu && !def->isTemplateInstantiation()) m_out.cpu = true;
            function(def, branch, depth + 1);
        } else {
            m_out.callees.push_back({name, branch});  // defined in another file: linked by name
        }
        return false;
    }

    const clang::SourceManager& m_sm;
    BodyFacts& m_out;
    std::set<std::pair<const clang::Decl*, Branch>> m_seen;
};

std::vector<NativeDevice> devices_of(const BodyFacts& b) {
    std::vector<NativeDevice> out;
    if (b.cuda) out.push_back(NativeDevice::CUDA);
    if (b.cpu) out.push_back(NativeDevice::CPU);
    return out;
}

// What a registration macro said, read back from the annotate attribute the shim gives it.
struct RegistrationScope {
    Registration::Kind kind;
    std::string module, key;
};

std::optional<RegistrationScope> registration_scope(const clang::FunctionDecl* fn) {
    const auto* a = fn->getAttr<clang::AnnotateAttr>();
    if (!a) return std::nullopt;
    const llvm::StringRef text = a->getAnnotation();
    llvm::SmallVector<llvm::StringRef, 4> parts;
    text.split(parts, ':');
    if (parts.size() < 3 || parts[0] != "mpsport") return std::nullopt;
    if (parts[1] == "pybind11") return RegistrationScope{Registration::Kind::pybind_def, parts[2].str(), ""};
    if (parts[1] == "library") return RegistrationScope{Registration::Kind::library_def, parts[2].str(), ""};
    if (parts[1] == "library_impl" && parts.size() >= 4) return RegistrationScope{Registration::Kind::library_impl, parts[2].str(), parts[3].str()};
    return std::nullopt;
}

class NativeOpDevices : public Check {
public:
    explicit NativeOpDevices(const std::vector<const Rule*>&) {}

    void on_ast(clang::ASTContext& ctx, const std::vector<clang::Decl*>&, CheckOutput& out) override {
        const auto& sm = ctx.getSourceManager();
        struct Visitor : clang::RecursiveASTVisitor<Visitor> {
            std::vector<const clang::FunctionDecl*> functions;
            bool shouldVisitLambdaExpressions() const { return false; }
            bool VisitFunctionDecl(clang::FunctionDecl* fn) {
                if (fn->doesThisDeclarationHaveABody()) functions.push_back(fn);
                return true;
            }
        } visitor;
        visitor.TraverseAST(ctx);
        for (const clang::FunctionDecl* fn : visitor.functions) {
            if (!sm.isWrittenInMainFile(sm.getExpansionLoc(fn->getLocation()))) continue;
            if (auto scope = registration_scope(fn)) {
                registrations(fn, *scope, sm, out);
            } else if (!fn->isDependentContext() && !fn->isTemplateInstantiation() && !fn->hasAttr<clang::CUDAGlobalAttr>() &&
                       !(fn->hasAttr<clang::CUDADeviceAttr>() && !fn->hasAttr<clang::CUDAHostAttr>())) {
                BodyFacts b;
                BodyWalker(sm, b).function(fn, Branch::any, 0);
                out.facts.functions.push_back({fn->getQualifiedNameAsString(), b.cuda, b.indirect && !b.cuda, b.cuda && b.cpu});
            }
        }
    }

private:
    void registrations(const clang::FunctionDecl* fn, const RegistrationScope& scope, const clang::SourceManager& sm, CheckOutput& out) {
        struct Calls : clang::RecursiveASTVisitor<Calls> {
            std::vector<const clang::CXXMemberCallExpr*> calls;
            bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr* c) {
                const auto* m = c->getMethodDecl();
                const auto* cls = m ? m->getParent() : nullptr;
                if (cls && (plain_name(m) == "def" || plain_name(m) == "impl") &&
                    (cls->getQualifiedNameAsString() == "torch::Library" || cls->getQualifiedNameAsString() == "pybind11::module_"))
                    calls.push_back(c);
                return true;
            }
        } visitor;
        visitor.TraverseStmt(fn->getBody());
        for (const auto* call : visitor.calls) {
            if (call->getNumArgs() == 0) continue;
            Registration r;
            r.kind = scope.kind;
            r.module = scope.module;
            r.dispatch_key = scope.key;
            const bool is_impl = plain_name(call->getMethodDecl()) == "impl";
            if (scope.kind == Registration::Kind::library_def && is_impl) r.kind = Registration::Kind::library_impl;
            r.op = string_literal(call->getArg(0));
            r.op = r.op.substr(0, r.op.find('('));
            if (auto colons = r.op.rfind("::"); colons != std::string::npos) r.op = r.op.substr(colons + 2);
            if (r.op.empty()) continue;
            if (call->getNumArgs() > 1) bound(call->getArg(1), r, sm);
            // Each call binds one op: a macro that wraps m.def (svox2's `#define _REG_FUNC(f) m.def(#f, &f)`
            // in the module's body) registers it where the macro is used, not on the #define's line.
            clang::SourceLocation loc = call->getBeginLoc();
            if (loc.isMacroID() && sm.isWrittenInMainFile(sm.getFileLoc(loc))) loc = sm.getFileLoc(loc);
            else loc = user_location(loc, sm);
            r.line = static_cast<int>(sm.getSpellingLineNumber(loc));
            r.col = static_cast<int>(sm.getSpellingColumnNumber(loc));
            const llvm::StringRef buffer = sm.getBufferData(sm.getMainFileID());
            const std::size_t offset = sm.getFileOffset(loc), line_start = buffer.rfind('\n', offset) + 1;
            r.snippet = buffer.substr(line_start, buffer.find('\n', offset) - line_start).trim().str();
            out.facts.registrations.push_back(std::move(r));
        }
    }

    // The function an m.def / m.impl binds: &fn, fn, TORCH_FN(fn), a lambda, torch::dispatch(key, fn).
    void bound(const clang::Expr* arg, Registration& r, const clang::SourceManager& sm) {
        const clang::Expr* e = bare(arg);
        if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e); call && callee_name(call) == "torch::dispatch" && call->getNumArgs() == 2) {
            if (const auto* key = llvm::dyn_cast<clang::DeclRefExpr>(bare(call->getArg(0)))) r.dispatch_key = plain_name(key->getDecl()).str();
            e = bare(call->getArg(1));
        }
        const clang::FunctionDecl* fn = nullptr;
        if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) fn = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl());
        if (const auto* lambda = llvm::dyn_cast<clang::LambdaExpr>(e)) fn = lambda->getCallOperator();
        if (!fn && !llvm::isa<clang::LambdaExpr>(e)) return;
        r.has_function = true;
        if (r.kind != Registration::Kind::pybind_def) return;  // a library op's device is its dispatch key
        BodyFacts b;
        BodyWalker walker(sm, b);
        if (fn && fn->hasBody()) {
            walker.function(fn, Branch::any, 0);
        } else if (fn) {
            b.callees.push_back({fn->getQualifiedNameAsString(), Branch::any});  // defined in another file
        }
        r.devices = devices_of(b);
        if (b.gated) {  // CUDA tensors only: no CPU path, whatever the helpers it calls do
            r.devices = {NativeDevice::CUDA};
            return;
        }
        if (b.indirect && r.devices.empty()) r.callees.push_back({"", Branch::any});  // an unknown target
        if (b.aten && r.devices.empty() && b.callees.empty()) r.devices.push_back(NativeDevice::Composite);
        r.callees.insert(r.callees.end(), b.callees.begin(), b.callees.end());
    }
};

template <class T>
std::unique_ptr<Check> make(const std::vector<const Rule*>& rules) {
    return std::make_unique<T>(rules);
}

}  // namespace

const std::map<std::string, CheckFactory>& registered_checks() {
    static const std::map<std::string, CheckFactory> checks = {
        {"library-includes", &make<LibraryIncludes>},
        {"native-op-devices", &make<NativeOpDevices>},
    };
    return checks;
}

}  // namespace mpsport::cuda
