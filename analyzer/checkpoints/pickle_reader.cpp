#include "analyzer/checkpoints/pickle_reader.hpp"

#include <cstring>
#include <map>
#include <memory>

namespace mpsport::checkpoints {
namespace {

using Kind = PickleValue::Kind;

// The values of one pickle; clearing their items on the way out breaks any reference cycle.
struct Arena {
    std::vector<PicklePtr> values;
    ~Arena() {
        for (auto& v : values) v->items.clear();
    }
};
thread_local Arena* t_arena = nullptr;  // the arena of the pickle this thread is reading

PicklePtr make(Kind k) {
    auto v = std::make_shared<PickleValue>();
    v->kind = k;
    if (t_arena) t_arena->values.push_back(v);
    return v;
}
PicklePtr make_int(std::int64_t i, Kind k = Kind::integer) {
    auto v = make(k);
    v->integer = i;
    return v;
}
PicklePtr make_text(Kind k, std::string s) {
    auto v = make(k);
    v->text = std::move(s);
    return v;
}

class Machine {
public:
    explicit Machine(std::string_view bytes) : m_in(bytes) {}

    PickleResult run() {
        while (true) {
            const std::size_t at = m_pos;
            const auto op = static_cast<unsigned char>(take(1)[0]);
            if (op == '.') break;
            try {
                step(op);
            } catch (const PickleError& e) {
                throw PickleError(std::string(e.what()) + " (opcode 0x" + hex(op) + " at byte " + std::to_string(at) + ")");
            }
        }
        if (m_stack.empty()) throw PickleError("empty stack at STOP");
        return {m_stack.back(), m_pos, std::move(m_globals), nullptr};
    }

private:
    static std::string hex(unsigned char c) {
        const char* digits = "0123456789abcdef";
        return {digits[c >> 4], digits[c & 15]};
    }
    std::string_view take(std::size_t n) {
        if (n > m_in.size() - m_pos) throw PickleError("truncated pickle: needs " + std::to_string(n) + " more bytes at byte " + std::to_string(m_pos));
        const std::string_view s = m_in.substr(m_pos, n);
        m_pos += n;
        return s;
    }
    std::uint64_t le(std::size_t n) {
        const std::string_view s = take(n);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
        return v;
    }
    std::string line() {
        const std::size_t nl = m_in.find('\n', m_pos);
        if (nl == std::string_view::npos) throw PickleError("truncated pickle: unterminated line");
        std::string s(m_in.substr(m_pos, nl - m_pos));
        m_pos = nl + 1;
        return s;
    }
    PicklePtr pop() {
        if (m_stack.empty()) throw PickleError("stack underflow");
        PicklePtr v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    PicklePtr& top() {
        if (m_stack.empty()) throw PickleError("stack underflow");
        return m_stack.back();
    }
    std::vector<PicklePtr> pop_to_mark() {
        std::vector<PicklePtr> items;
        while (true) {
            PicklePtr v = pop();
            if (v->kind == Kind::mark) break;
            items.push_back(std::move(v));
        }
        return {items.rbegin(), items.rend()};
    }
    PicklePtr tuple(std::vector<PicklePtr> items) {
        auto t = make(Kind::tuple);
        t->items = std::move(items);
        return t;
    }
    PicklePtr global(std::string module, std::string name) {
        std::string full = module + "." + name;
        m_globals.insert(full);
        return make_text(Kind::global, std::move(full));
    }
    PicklePtr call(PicklePtr callable, PicklePtr args) {
        auto c = make(Kind::call);
        c->items = {std::move(callable), std::move(args)};
        return c;
    }
    void memo_put(std::uint64_t key) { m_memo[key] = top(); }
    PicklePtr memo_get(std::uint64_t key) {
        auto it = m_memo.find(key);
        if (it == m_memo.end()) throw PickleError("memo key " + std::to_string(key) + " was never stored");
        return it->second;
    }
    std::int64_t long_bytes(std::size_t n) {
        const std::string_view s = take(n);
        if (n == 0) return 0;
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n && i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
        if (n < 8 && (static_cast<unsigned char>(s[n - 1]) & 0x80)) v |= ~std::uint64_t(0) << (8 * n);
        return static_cast<std::int64_t>(v);
    }
    void add_items(PicklePtr& target, std::vector<PicklePtr> items) {
        for (auto& i : items) target->items.push_back(std::move(i));
    }

    void step(unsigned char op);

    std::string_view m_in;
    std::size_t m_pos = 0;
    std::vector<PicklePtr> m_stack;
    std::map<std::uint64_t, PicklePtr> m_memo;
    std::set<std::string> m_globals;
};

void Machine::step(unsigned char op) {
    switch (op) {
        case 0x80: take(1); break;                 // PROTO
        case 0x95: take(8); break;                 // FRAME
        case '(': m_stack.push_back(make(Kind::mark)); break;
        case '0': pop(); break;
        case '1': pop_to_mark(); break;
        case '2': m_stack.push_back(top()); break;
        case 'N': m_stack.push_back(make(Kind::none)); break;
        case 0x88: m_stack.push_back(make_int(1, Kind::boolean)); break;
        case 0x89: m_stack.push_back(make_int(0, Kind::boolean)); break;
        case 'J': m_stack.push_back(make_int(static_cast<std::int32_t>(le(4)))); break;
        case 'K': m_stack.push_back(make_int(static_cast<std::int64_t>(le(1)))); break;
        case 'M': m_stack.push_back(make_int(static_cast<std::int64_t>(le(2)))); break;
        case 0x8a: m_stack.push_back(make_int(long_bytes(le(1)))); break;
        case 0x8b: m_stack.push_back(make_int(long_bytes(le(4)))); break;
        case 'I': case 'L': {
            std::string s = line();
            if (!s.empty() && s.back() == 'L') s.pop_back();
            if (s == "00" || s == "01") m_stack.push_back(make_int(s == "01", Kind::boolean));
            else m_stack.push_back(make_int(std::strtoll(s.c_str(), nullptr, 10)));
            break;
        }
        case 'F': { auto v = make(Kind::floating); v->floating = std::strtod(line().c_str(), nullptr); m_stack.push_back(v); break; }
        case 'G': {
            const std::string_view s = take(8);
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(s[static_cast<std::size_t>(i)]);
            auto v = make(Kind::floating);
            std::memcpy(&v->floating, &bits, 8);
            m_stack.push_back(v);
            break;
        }
        case 'X': m_stack.push_back(make_text(Kind::string, std::string(take(le(4))))); break;
        case 0x8c: m_stack.push_back(make_text(Kind::string, std::string(take(le(1))))); break;
        case 0x8d: m_stack.push_back(make_text(Kind::string, std::string(take(le(8))))); break;
        case 'V': m_stack.push_back(make_text(Kind::string, line())); break;
        case 'S': { std::string s = line(); if (s.size() >= 2) s = s.substr(1, s.size() - 2); m_stack.push_back(make_text(Kind::string, s)); break; }
        case 'T': m_stack.push_back(make_text(Kind::string, std::string(take(le(4))))); break;
        case 'U': m_stack.push_back(make_text(Kind::string, std::string(take(le(1))))); break;
        case 'B': m_stack.push_back(make_text(Kind::bytes, std::string(take(le(4))))); break;
        case 'C': m_stack.push_back(make_text(Kind::bytes, std::string(take(le(1))))); break;
        case 0x8e: case 0x96: m_stack.push_back(make_text(Kind::bytes, std::string(take(le(8))))); break;
        case ')': m_stack.push_back(make(Kind::tuple)); break;
        case 't': m_stack.push_back(tuple(pop_to_mark())); break;
        case 0x85: { auto a = pop(); m_stack.push_back(tuple({a})); break; }
        case 0x86: { auto b = pop(); auto a = pop(); m_stack.push_back(tuple({a, b})); break; }
        case 0x87: { auto c = pop(); auto b = pop(); auto a = pop(); m_stack.push_back(tuple({a, b, c})); break; }
        case ']': m_stack.push_back(make(Kind::list)); break;
        case 'l': { auto l = make(Kind::list); l->items = pop_to_mark(); m_stack.push_back(l); break; }
        case 'a': { auto v = pop(); top()->items.push_back(v); break; }
        case 'e': { auto items = pop_to_mark(); add_items(top(), std::move(items)); break; }
        case '}': m_stack.push_back(make(Kind::dict)); break;
        case 'd': { auto d = make(Kind::dict); d->items = pop_to_mark(); m_stack.push_back(d); break; }
        case 's': { auto v = pop(); auto k = pop(); top()->items.push_back(k); top()->items.push_back(v); break; }
        case 'u': { auto items = pop_to_mark(); add_items(top(), std::move(items)); break; }
        case 0x8f: m_stack.push_back(make(Kind::set)); break;
        case 0x90: { auto items = pop_to_mark(); add_items(top(), std::move(items)); break; }
        case 0x91: { auto s = make(Kind::set); s->items = pop_to_mark(); m_stack.push_back(s); break; }
        case 'c': { std::string module = line(); std::string name = line(); m_stack.push_back(global(module, name)); break; }
        case 0x93: {
            auto name = pop();
            auto module = pop();
            if (name->kind != Kind::string || module->kind != Kind::string) throw PickleError("STACK_GLOBAL needs two strings");
            m_stack.push_back(global(module->text, name->text));
            break;
        }
        case 'i': {  // INST: module, name, args from the mark
            std::string module = line();
            std::string name = line();
            auto args = tuple(pop_to_mark());
            m_stack.push_back(call(global(module, name), args));
            break;
        }
        case 'o': { auto items = pop_to_mark(); if (items.empty()) throw PickleError("OBJ without a class"); auto cls = items.front(); items.erase(items.begin()); m_stack.push_back(call(cls, tuple(items))); break; }
        case 'R': case 0x81: { auto args = pop(); auto callable = pop(); m_stack.push_back(call(callable, args)); break; }
        case 0x92: { auto kwargs = pop(); auto args = pop(); auto cls = pop(); m_stack.push_back(call(cls, args)); break; }
        case 'b': { auto state = pop(); top()->items.push_back(state); break; }  // BUILD: the state joins the object
        case 'Q': { auto id = pop(); auto p = make(Kind::persistent_id); p->items.push_back(id); m_stack.push_back(p); break; }
        case 'P': { auto p = make(Kind::persistent_id); p->items.push_back(make_text(Kind::string, line())); m_stack.push_back(p); break; }
        case 'q': memo_put(le(1)); break;
        case 'r': memo_put(le(4)); break;
        case 'p': memo_put(static_cast<std::uint64_t>(std::strtoull(line().c_str(), nullptr, 10))); break;
        case 0x94: memo_put(m_memo.size()); break;
        case 'h': m_stack.push_back(memo_get(le(1))); break;
        case 'j': m_stack.push_back(memo_get(le(4))); break;
        case 'g': m_stack.push_back(memo_get(static_cast<std::uint64_t>(std::strtoull(line().c_str(), nullptr, 10)))); break;
        case 0x82: take(1); m_stack.push_back(make(Kind::none)); break;  // EXT*: registry codes, not followed
        case 0x83: take(2); m_stack.push_back(make(Kind::none)); break;
        case 0x84: take(4); m_stack.push_back(make(Kind::none)); break;
        default: throw PickleError("unsupported opcode");
    }
}

}  // namespace

PickleResult read_pickle(std::string_view bytes) {
    auto arena = std::make_shared<Arena>();
    struct Scope {
        Arena* previous;
        explicit Scope(Arena* a) : previous(t_arena) { t_arena = a; }
        ~Scope() { t_arena = previous; }
    } scope(arena.get());
    PickleResult result = Machine(bytes).run();
    result.arena = std::move(arena);
    return result;
}

}  // namespace mpsport::checkpoints
