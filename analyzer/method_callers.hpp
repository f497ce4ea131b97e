// The files that may call a method, found by its name: every Python file of the same project that
// writes `.name` or "name" (FileFacts::attribute_names). Used where a finding in a method is weighed by
// the calls of that method (analyzer/call_guards.cpp for guards, analyzer/grad_callers.cpp for
// gradients).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/program/program_model.hpp"
#include "core/program_facts.hpp"

namespace mpsport {

// A name written in more files than this is a common one (`update`, `to`): which of its calls are this
// class's cannot be told by name, and reading them all would cost a scan.
inline constexpr std::size_t kMaxMethodCallerFiles = 24;

// The Python files of `defining`'s project that write `name`, or nothing when the calls cannot all be
// read: a notebook writes it (its calls are not read by these passes), or too many files do.
inline std::optional<std::vector<const program::FileRecord*>> method_callers(const std::vector<program::FileRecord>& records,
                                                                             const program::ProgramModel& model, const std::string& defining,
                                                                             const std::string& name) {
    const std::uint32_t h = name_hash(name);
    std::vector<const program::FileRecord*> out;
    for (const auto& r : records) {
        if (!r.facts || !model.same_project(r.path, defining) ||
            !std::binary_search(r.facts->attribute_names.begin(), r.facts->attribute_names.end(), h))
            continue;
        if (r.kind != FileKind::python) return std::nullopt;
        out.push_back(&r);
        if (out.size() > kMaxMethodCallerFiles) return std::nullopt;
    }
    return out;
}

}  // namespace mpsport
