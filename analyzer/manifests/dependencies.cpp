#include "analyzer/manifests/dependencies.hpp"

namespace mpsport::manifests {

Dependency make_dependency(const Requirement& r, Scope scope, std::string group, Span span) {
    Dependency d;
    d.name = r.name;
    d.extras = r.extras;
    d.version = r.version;
    d.url = r.url;
    d.scope = scope;
    d.group = std::move(group);
    d.linux_only = marker_excludes_macos(r.marker);
    d.span = span;
    d.cuda_build = cuda_build_tag(r.version + " " + r.url);
    return d;
}

ManifestFacts read_manifest(FileKind kind, const SourceText& source) {
    switch (kind) {
        case FileKind::requirements: return read_requirements(source);
        case FileKind::pyproject: return read_pyproject(source);
        case FileKind::conda_env: return read_conda_env(source);
        case FileKind::setup_cfg: return read_setup_cfg(source);
        case FileKind::setup_py: return read_setup_py(source);
        default: return {};
    }
}

}  // namespace mpsport::manifests
