#include "analyzer/checkpoints/checkpoint.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <fstream>
#include <set>

#include "analyzer/checkpoints/pickle_reader.hpp"
#include "analyzer/checkpoints/zip_reader.hpp"

namespace fs = std::filesystem;

namespace mpsport::checkpoints {
namespace {

using Kind = PickleValue::Kind;

struct DtypeInfo {
    const char* dtype;
    unsigned itemsize;
};

// torch.<Name>Storage in a persistent id -> element type.
std::optional<DtypeInfo> storage_dtype(std::string_view global) {
    static const std::map<std::string, DtypeInfo, std::less<>> table = {
        {"torch.FloatStorage", {"float32", 4}},  {"torch.DoubleStorage", {"float64", 8}},
        {"torch.HalfStorage", {"float16", 2}},   {"torch.BFloat16Storage", {"bfloat16", 2}},
        {"torch.LongStorage", {"int64", 8}},     {"torch.IntStorage", {"int32", 4}},
        {"torch.ShortStorage", {"int16", 2}},    {"torch.CharStorage", {"int8", 1}},
        {"torch.ByteStorage", {"uint8", 1}},     {"torch.BoolStorage", {"bool", 1}},
        {"torch.ComplexFloatStorage", {"complex64", 8}}, {"torch.ComplexDoubleStorage", {"complex128", 16}},
        {"torch.QInt8Storage", {"qint8", 1}},    {"torch.QUInt8Storage", {"quint8", 1}},
        {"torch.QInt32Storage", {"qint32", 4}},  {"torch.UntypedStorage", {"uint8", 1}},
        {"torch.Float8_e4m3fnStorage", {"float8_e4m3fn", 1}}, {"torch.Float8_e5m2Storage", {"float8_e5m2", 1}},
    };
    auto it = table.find(global);
    if (it == table.end()) return std::nullopt;
    return it->second;
}

bool known_global(const std::string& g) {
    static const std::vector<std::string> prefixes = {"torch.", "collections.", "builtins.", "__builtin__.", "numpy.",
                                                      "_codecs.encode", "copyreg.", "copy_reg.", "__torch__."};
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return g.rfind(p, 0) == 0; });
}

bool is_tensor_rebuild(const PicklePtr& callable) {
    if (!callable || callable->kind != Kind::global) return false;
    static const std::set<std::string> rebuilders = {
        "torch._utils._rebuild_tensor",  "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor_v3",
        "torch._utils._rebuild_qtensor", "torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_device_tensor_from_numpy",
        "torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_wrapper_subclass"};
    return rebuilders.count(callable->text) > 0;
}

// Walks the value tree once (shared and cyclic nodes visited once): tensors and storages.
class TensorCollector {
public:
    void visit(const PicklePtr& v) {
        if (!v || !m_seen.insert(v.get()).second) return;
        if (v->kind == Kind::call && !v->items.empty() && is_tensor_rebuild(v->items[0])) ++tensors;
        if (v->kind == Kind::persistent_id && !v->items.empty()) storage(v->items[0]);
        for (const auto& child : v->items) visit(child);
    }

    std::size_t tensors = 0;
    std::map<std::string, Storage> storages;

private:
    // ('storage', torch.FloatStorage, key, location, numel[, view metadata])
    void storage(const PicklePtr& id) {
        if (id->kind != Kind::tuple || id->items.size() < 5 || id->items[0]->text != "storage") return;
        Storage s;
        const auto dtype = storage_dtype(id->items[1]->text);
        s.dtype = dtype ? dtype->dtype : id->items[1]->text;
        s.key = id->items[2]->kind == Kind::string ? id->items[2]->text : std::to_string(id->items[2]->integer);
        s.location = id->items[3]->text;
        s.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, id->items[4]->integer)) * (dtype ? dtype->itemsize : 1);
        storages.emplace(s.key, std::move(s));
    }
    std::set<const PickleValue*> m_seen;
};

void collect(const PickleResult& pickle, Summary& out) {
    TensorCollector c;
    c.visit(pickle.root);
    out.tensors += c.tensors;
    for (auto& [key, s] : c.storages) out.storages.push_back(std::move(s));
    for (const auto& g : pickle.globals)
        if (!known_global(g)) out.unknown_globals.push_back(g);
}

std::string read_prefix(std::ifstream& in, std::uint64_t n) {
    std::string buf(static_cast<std::size_t>(n), '\0');
    in.clear();
    in.seekg(0);
    in.read(buf.data(), static_cast<std::streamsize>(n));
    buf.resize(static_cast<std::size_t>(in.gcount()));
    return buf;
}

Summary read_zip(std::ifstream& in, std::uint64_t size, const Limits& limits) {
    ZipReader zip(in, size, limits.header_bytes);
    const ZipEntry* pickle = nullptr;
    bool torchscript = false;
    std::map<std::string, const ZipEntry*> data;  // storage key -> its entry
    for (const auto& e : zip.entries()) {
        const std::size_t slash = e.name.find('/');
        const std::string rest = slash == std::string::npos ? e.name : e.name.substr(slash + 1);
        if (rest == "data.pkl") pickle = &e;
        if (rest == "constants.pkl" || rest.rfind("code/", 0) == 0) torchscript = true;
        if (rest.rfind("data/", 0) == 0) data[rest.substr(5)] = &e;
    }
    if (!pickle) throw FormatError("a zip archive without data.pkl: not written by torch.save");
    Summary out;
    out.format = torchscript ? Format::torchscript_zip : Format::torch_zip;
    try {
        collect(read_pickle(zip.read(*pickle, limits.header_bytes)), out);
    } catch (const PickleError& e) {
        throw FormatError(std::string("data.pkl is not a readable pickle: ") + e.what());
    }
    for (auto& s : out.storages) {
        auto it = data.find(s.key);
        if (it == data.end() || !zip.complete(*it->second)) ++out.missing_storages;
        else s.bytes = it->second->size;  // the archive's own figure
    }
    return out;
}

Summary read_legacy(std::ifstream& in, std::uint64_t size, const Limits& limits) {
    const std::string bytes = read_prefix(in, std::min(size, limits.header_bytes));
    Summary out;
    std::size_t at = 0;
    try {
        // magic number, protocol version, sys info, then the object itself.
        const PickleResult magic = read_pickle(bytes);
        // torch's legacy magic number 0x1950a86a20f9469cfc6c does not fit an int64: compare its pickled bytes.
        static const std::string kMagic = std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14);
        if (bytes.compare(0, kMagic.size(), kMagic) != 0) {
            out.format = Format::plain_pickle;
            collect(magic, out);
            return out;
        }
        out.format = Format::torch_legacy;
        at = magic.consumed;
        at += read_pickle(std::string_view(bytes).substr(at)).consumed;  // protocol version
        at += read_pickle(std::string_view(bytes).substr(at)).consumed;  // sys info
        collect(read_pickle(std::string_view(bytes).substr(at)), out);
    } catch (const PickleError& e) {
        if (bytes.size() < size && std::string(e.what()).find("truncated") != std::string::npos)
            throw FormatError("the pickle header is larger than the header limit of " + std::to_string(limits.header_bytes) +
                              " bytes (raise --checkpoint-header-limit)");
        throw FormatError(std::string("a pickle that cannot be read: ") + e.what());
    }
    return out;
}

Summary read_safetensors(std::ifstream& in, std::uint64_t size, const Limits& limits, std::uint64_t header_len) {
    if (header_len > limits.header_bytes)
        throw FormatError("safetensors header of " + std::to_string(header_len) + " bytes is over the header limit");
    const std::string prefix = read_prefix(in, 8 + header_len);
    if (prefix.size() < 8 + header_len) throw FormatError("truncated safetensors file: the header runs past the end");
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(prefix.substr(8));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(std::string("safetensors header is not valid JSON: ") + e.what());
    }
    static const std::map<std::string, std::string> dtypes = {
        {"F64", "float64"}, {"F32", "float32"}, {"F16", "float16"}, {"BF16", "bfloat16"}, {"I64", "int64"}, {"I32", "int32"},
        {"I16", "int16"}, {"I8", "int8"}, {"U8", "uint8"}, {"BOOL", "bool"}, {"C64", "complex64"}, {"C128", "complex128"},
        {"F8_E4M3", "float8_e4m3fn"}, {"F8_E5M2", "float8_e5m2"}, {"U16", "uint16"}, {"U32", "uint32"}, {"U64", "uint64"}};
    Summary out;
    out.format = Format::safetensors;
    for (const auto& item : header.items()) {
        const std::string& name = item.key();
        const nlohmann::json& t = item.value();
        if (name == "__metadata__" || !t.is_object()) continue;
        ++out.tensors;
        Storage s;
        s.key = name;
        // A field of another type is a malformed header, not an exception from the JSON library (found by fuzzing).
        const auto field = [&](const char* key, bool ok) {
            if (t.contains(key) && !ok) throw FormatError("safetensors header: tensor '" + name + "': " + key + " has the wrong type");
        };
        field("dtype", t.value("dtype", nlohmann::json("?")).is_string());
        const auto& raw_offsets = t.contains("data_offsets") ? t["data_offsets"] : nlohmann::json::array();
        field("data_offsets", raw_offsets.is_array() && std::all_of(raw_offsets.begin(), raw_offsets.end(), [](const auto& v) {
                                  return v.is_number_unsigned();
                              }));
        const std::string dt = t.value("dtype", std::string("?"));
        s.dtype = dtypes.count(dt) ? dtypes.at(dt) : dt;
        const auto offsets = raw_offsets.get<std::vector<std::uint64_t>>();
        if (offsets.size() == 2 && offsets[1] >= offsets[0]) {
            s.bytes = offsets[1] - offsets[0];
            if (8 + header_len + offsets[1] > size) ++out.missing_storages;
        }
        out.storages.push_back(std::move(s));
    }
    return out;
}

}  // namespace

std::string_view to_string(Format f) {
    switch (f) {
        case Format::torch_zip: return "torch.save zip archive";
        case Format::torchscript_zip: return "TorchScript archive";
        case Format::torch_legacy: return "legacy torch.save file";
        case Format::plain_pickle: return "plain pickle";
        case Format::safetensors: return "safetensors";
    }
    return "checkpoint";
}

std::uint64_t Summary::total_bytes() const {
    std::uint64_t n = 0;
    for (const auto& s : storages) n += s.bytes;
    return n;
}
std::map<std::string, std::uint64_t> Summary::bytes_by_dtype() const {
    std::map<std::string, std::uint64_t> m;
    for (const auto& s : storages) m[s.dtype] += s.bytes;
    return m;
}
std::map<std::string, std::uint64_t> Summary::bytes_by_location() const {
    std::map<std::string, std::uint64_t> m;
    for (const auto& s : storages)
        if (!s.location.empty()) m[s.location] += s.bytes;
    return m;
}

Summary read_checkpoint(const fs::path& path, const Limits& limits) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::is_regular_file(status)) throw FormatError("not a regular file; not opened");
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec) throw FormatError("unreadable: " + ec.message());
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FormatError("cannot be opened for reading");
    const std::string head = read_prefix(in, std::min<std::uint64_t>(size, 16));
    if (head.empty()) throw FormatError("empty file: not a checkpoint");
    Summary out;
    if (head.rfind("PK\x03\x04", 0) == 0 || head.rfind("PK\x05\x06", 0) == 0) {
        out = read_zip(in, size, limits);
    } else if (static_cast<unsigned char>(head[0]) == 0x80 && head.size() > 1 && head[1] >= 2 && head[1] <= 5) {
        out = read_legacy(in, size, limits);
    } else if (head.size() >= 9 && head[8] == '{') {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(head[static_cast<std::size_t>(i)]);
        out = read_safetensors(in, size, limits, n);
    } else {
        throw FormatError("not a checkpoint: neither a torch.save zip archive, a pickle, nor safetensors");
    }
    out.file_size = size;
    return out;
}

}  // namespace mpsport::checkpoints
