#include "analyzer/program/data_reach.hpp"

#include <algorithm>

namespace mpsport::program {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// A load that moves the storages off CUDA: map_location="cpu", a device variable, a function; not
// map_location="cuda:0". A load that a Mac never runs counts as one: on the CUDA side of a device
// check or another platform's branch (stargan-v2's `if torch.cuda.is_available(): torch.load(path)
// else: torch.load(path, map_location=torch.device('cpu'))`).
bool remaps_off_cuda(const DataReader& r) {
    if (r.load && (r.guard == GuardKind::device_check || r.guard == GuardKind::platform)) return true;
    return r.load && r.remap && lower(*r.remap).find("cuda") == std::string::npos;
}

FileReach strongest_reader(const ProgramModel& model, const std::vector<DataReader>& readers) {
    FileReach best;
    bool first = true;
    for (const auto& site : readers) {
        FileReach r = model.reach_of(site.path);
        if (!r.chain.empty() && site.line > 0) r.chain.back() += ":" + std::to_string(site.line);
        if (first || r.level > best.level) best = std::move(r);
        first = false;
    }
    return best;
}

RelatedLocation reader_location(const DataReader& site) {
    RelatedLocation rel;
    rel.location.path = site.path;
    rel.location.line = rel.location.end_line = std::max(1, site.line);
    rel.label = site.how + (site.load && !site.remap ? " (no map_location)" : "");
    return rel;
}

}  // namespace

void apply_data_reach(const ProgramModel& model, const DataReaders& readers, const ProgramVocabulary& vocabulary,
                      std::vector<Finding>& findings) {
    const DataReaderVocabulary& v = vocabulary.readers;
    for (auto& f : findings) {
        const auto it = readers.find(f.location.path);
        std::vector<std::pair<const WeightRule*, std::string>> context;
        FileReach r;
        bool unselected = false;
        if (it == readers.end() || it->second.empty()) {
            // with no entry point found, nothing counts as unreached (a lone checkpoint asked about)
            const bool tooling = model.is_tooling_path(f.location.path);
            r.level = tooling ? Level::tooling : model.summary().complete ? Level::unreached : Level::core;
            if (v.unread && r.level != Level::core) context.emplace_back(&*v.unread, "read by no code found");
        } else {
            const auto& sites = it->second;
            r = strongest_reader(model, sites);
            for (const auto& site : sites) f.related.push_back(reader_location(site));
            // map_location remaps devices, nothing else: only a device finding goes away with it
            if (f.category == "device" && v.remapped && std::all_of(sites.begin(), sites.end(), remaps_off_cuda)) {
                const auto mapped = std::find_if(sites.begin(), sites.end(), [](const DataReader& s) { return s.remap.has_value(); });
                const bool all_mapped = std::all_of(sites.begin(), sites.end(), [](const DataReader& s) { return s.remap.has_value(); });
                context.emplace_back(&*v.remapped, mapped == sites.end() ? "every load of it runs only with CUDA"
                                                   : all_mapped         ? "every load remaps it: " + *mapped->remap
                                                                        : "every load remaps it (" + *mapped->remap + ") or runs only with CUDA");
            }
            // A Hydra option no default run loads: reached, but only when a command line picks it.
            unselected = std::all_of(sites.begin(), sites.end(), [](const DataReader& s) { return s.unselected; });
            // Read only under guards (`if torch.cuda.is_available(): cfg = load("configs/gpu.yaml")`):
            // as guarded as the read that keeps it most alive.
            const auto loosest = std::max_element(sites.begin(), sites.end(), [](const DataReader& a, const DataReader& b) {
                return guard_strength(a.guard) < guard_strength(b.guard);
            });
            if (f.guard == GuardKind::none && loosest->guard != GuardKind::none) {
                f.guard = loosest->guard;
                f.guard_note = loosest->guard_note + " (" + loosest->path + ":" + std::to_string(loosest->line) + ")";
            }
            if (unselected && v.unselected) context.emplace_back(&*v.unselected, sites.front().how);
        }
        f.reach = reach_for(r.level);
        if (f.reach == Reach::core || f.reach == Reach::optional) {
            f.chain = r.chain;
            f.chain.push_back(f.location.path);
        }
        weigh(f, r.level, r, vocabulary, context);
        if (unselected && f.reach == Reach::core) f.reach = Reach::optional;  // the default option is the other path
    }
}

}  // namespace mpsport::program
