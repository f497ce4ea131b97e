// Whether gradients flow through a call: asked only for an op whose sole MPS fallback is its backward
// op (F.grid_sample under PyTorch 2.6.0 runs grid_sampler_2d on MPS, but grid_sampler_2d_backward on the
// CPU). Where no gradients flow the backward op never runs. The vocabulary is rules/program.yaml's
// (guards: no_grad_contexts, inference_words, training_words, training_methods).
#pragma once

#include <tree_sitter/api.h>

#include <set>
#include <string>
#include <vector>

#include "analyzer/python/syntax.hpp"
#include "core/rule.hpp"

namespace mpsport::python {

enum class Grad {
    unknown,   // nothing around the call says: see `frontier`
    training,  // a module's forward, a loss, a function that calls loss.backward(), or called from one
    none,      // under torch.no_grad() / inference_mode(), an inference function, the `not self.training` branch
};

struct GradContext {
    Grad grad = Grad::unknown;
    std::string why;  // "under `with torch.no_grad():` (line 57)", "in forward()"
    // unknown: the module-level functions of this file whose callers elsewhere decide (the call's own
    // function and those of its callers in this file that nothing here decides either).
    std::vector<std::string> frontier;
};

class GradContextFinder {
public:
    // `root` must be the tree of the whole file: callers and decorators lie outside a call's statement.
    GradContextFinder(const GuardVocabulary& vocabulary, const ModuleFacts& facts, TSNode root);

    GradContext of(TSNode node) const;
    // Only what the code around `node` says (no callers): for a layer built here, whose forward runs
    // wherever the model does.
    GradContext around(TSNode node) const { return local(node); }

    // Every use in the file of one of `names` (a call `f(...)` / `mod.f(...)`, or the function passed on
    // as a value), with its context.
    std::vector<std::pair<TSNode, GradContext>> uses_of(const std::set<std::string, std::less<>>& names) const;

private:
    GradContext local(TSNode node) const;
    GradContext of(TSNode node, int depth, std::set<std::string>& visited) const;
    GradContext from_callers(TSNode function, int depth, std::set<std::string>& visited) const;
    std::string named(TSNode definition) const;  // "none" / "training" word found in a def's or class's name
    bool no_grad_expression(TSNode expr) const;

    const GuardVocabulary& m_vocab;
    const ModuleFacts& m_facts;
    TSNode m_root;
    std::string m_file_trains;  // "calls .backward() on line 40" when the file trains anywhere
};

}  // namespace mpsport::python
