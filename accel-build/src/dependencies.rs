//! The accel packages a package depends on, whose `#[accel]` functions its own may call.
//!
//! An accel package is one with a normal dependency on `accel`. They are found in the package's
//! resolved dependency graph, which `cargo metadata` gives (the one tool that knows where every
//! dependency's source lies: a path, the registry's cache, a git checkout), limited to the
//! platform being built for so that it needs only the sources this build downloaded. The graph
//! is walked from the package through every kind of dependency (its tests and benchmarks may
//! call into dev-dependencies), and from there through normal dependencies only.
//!
//! A dependency of the package is named as the package's code names it (a renamed one by its new
//! name); one further away by its library's crate name.
//!
//! Limits: only a dependency's `src/` directory is read (where a library's modules live); a
//! library whose root file lies elsewhere is not found.

use accel_core::library::Dependency;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The accel dependencies of the package at `root`, building for `target`, asking `cargo` (the
/// path cargo gives build scripts in `CARGO`). Offline first (the build has downloaded what it
/// needs); online only if that fails.
pub fn find(cargo: &Path, root: &Path, target: &str) -> Result<Vec<Dependency>, String> {
    let manifest = root.join("Cargo.toml");
    let metadata = |offline: bool| {
        let mut command = std::process::Command::new(cargo);
        command.args(["metadata", "--format-version", "1", "--filter-platform", target, "--manifest-path"]);
        command.arg(&manifest);
        if offline {
            command.arg("--offline");
        }
        command.output()
    };
    let output = metadata(true)
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(|| metadata(false), Ok)
        .map_err(|e| format!("running `cargo metadata`: {e}"))?;
    if !output.status.success() {
        return Err(format!("`cargo metadata` failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("reading the output of `cargo metadata`: {e}"))?;
    in_metadata(&metadata, &accel_core::library::canonical(&manifest))
}

/// A package of the metadata: what the walk needs of it.
struct Package {
    root: PathBuf,
    /// Its library's crate name (`-` written `_`), if it has a library.
    library: Option<String>,
    /// Whether it has a normal dependency on `accel`.
    uses_accel: bool,
}

/// The accel dependencies of the package whose manifest is `manifest`, in `cargo metadata`'s
/// output.
fn in_metadata(metadata: &Value, manifest: &Path) -> Result<Vec<Dependency>, String> {
    let missing = |what: &str| format!("`cargo metadata` gave no {what}");
    let mut packages = BTreeMap::new();
    let mut root_id = None;
    for package in metadata["packages"].as_array().ok_or_else(|| missing("packages"))? {
        let id = package["id"].as_str().ok_or_else(|| missing("package id"))?;
        let manifest_path = PathBuf::from(package["manifest_path"].as_str().ok_or_else(|| missing("manifest path"))?);
        let library = package["targets"].as_array().into_iter().flatten().find_map(|t| {
            let kinds = t["kind"].as_array()?;
            kinds.iter().any(|k| k == "lib" || k == "rlib").then(|| t["name"].as_str().map(|n| n.replace('-', "_")))?
        });
        let uses_accel = package["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| d["name"] == "accel" && d["kind"].is_null());
        if accel_core::library::canonical(&manifest_path) == manifest {
            root_id = Some(id.to_string());
        }
        let root = manifest_path.parent().map(Path::to_path_buf).unwrap_or_default();
        packages.insert(id.to_string(), Package { root, library, uses_accel });
    }
    let root_id = root_id.ok_or_else(|| format!("`cargo metadata` does not list {}", manifest.display()))?;
    // Each package's dependencies: (the name its code uses, the package, whether normal).
    let mut edges: BTreeMap<String, Vec<(String, String, bool)>> = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().ok_or_else(|| missing("dependency graph"))? {
        let id = node["id"].as_str().ok_or_else(|| missing("node id"))?;
        let deps = node["deps"].as_array().into_iter().flatten().filter_map(|d| {
            let normal = d["dep_kinds"].as_array()?.iter().any(|k| k["kind"].is_null());
            Some((d["name"].as_str()?.to_string(), d["pkg"].as_str()?.to_string(), normal))
        });
        edges.insert(id.to_string(), deps.collect());
    }

    let mut found = Vec::new();
    let mut seen = BTreeSet::from([root_id.clone()]);
    let mut queue = VecDeque::from([root_id.clone()]);
    while let Some(id) = queue.pop_front() {
        let from_root = id == root_id;
        for (name, dep, normal) in edges.get(&id).into_iter().flatten() {
            if (!from_root && !normal) || !seen.insert(dep.clone()) {
                continue;
            }
            queue.push_back(dep.clone());
            let Some(package) = packages.get(dep) else { continue };
            let name = if from_root { Some(name.clone()) } else { package.library.clone() };
            if let (true, Some(name)) = (package.uses_accel, name) {
                found.push(Dependency { name, root: package.root.clone() });
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `app` depends on `geo-kit` (renamed `geo`, an accel package) and on `plain`; `geo-kit`
    /// on `stats-kit` (an accel package) and, for its tests only, on `helper` (another).
    fn metadata() -> Value {
        let package = |name: &str, lib: &str, deps: &[(&str, Option<&str>)]| {
            let deps: Vec<Value> =
                deps.iter().map(|(n, kind)| serde_json::json!({ "name": n, "kind": kind })).collect();
            serde_json::json!({
                "id": format!("{name}-id"),
                "manifest_path": format!("/ws/{name}/Cargo.toml"),
                "targets": [{ "name": lib, "kind": ["lib"] }],
                "dependencies": deps,
            })
        };
        let dep = |name: &str, pkg: &str, kind: Option<&str>| serde_json::json!({ "name": name, "pkg": format!("{pkg}-id"), "dep_kinds": [{ "kind": kind }] });
        serde_json::json!({
            "packages": [
                package("app", "app", &[("accel", None), ("geo-kit", None), ("plain", None)]),
                package("geo-kit", "geo-kit", &[("accel", None), ("stats-kit", None), ("helper", Some("dev"))]),
                package("stats-kit", "stats_kit", &[("accel", None)]),
                package("helper", "helper", &[("accel", None)]),
                package("plain", "plain", &[]),
                package("accel", "accel", &[]),
            ],
            "resolve": { "nodes": [
                { "id": "app-id", "deps": [dep("accel", "accel", None), dep("geo", "geo-kit", None), dep("plain", "plain", None)] },
                { "id": "geo-kit-id", "deps": [dep("accel", "accel", None), dep("stats_kit", "stats-kit", None), dep("helper", "helper", Some("dev"))] },
                { "id": "stats-kit-id", "deps": [dep("accel", "accel", None)] },
                { "id": "helper-id", "deps": [dep("accel", "accel", None)] },
                { "id": "plain-id", "deps": [] },
                { "id": "accel-id", "deps": [] },
            ]},
        })
    }

    #[test]
    fn finds_accel_packages_named_as_the_code_names_them() {
        let found = in_metadata(&metadata(), Path::new("/ws/app/Cargo.toml")).unwrap();
        let found: Vec<(String, PathBuf)> = found.into_iter().map(|d| (d.name, d.root)).collect();
        assert_eq!(
            found,
            [
                ("geo".to_string(), PathBuf::from("/ws/geo-kit")),
                ("stats_kit".to_string(), PathBuf::from("/ws/stats-kit"))
            ]
        );
    }

    #[test]
    fn a_packages_own_dev_dependencies_count_but_not_those_of_its_dependencies() {
        let found = in_metadata(&metadata(), Path::new("/ws/geo-kit/Cargo.toml")).unwrap();
        let names: Vec<String> = found.into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["stats_kit", "helper"]);
    }

    #[test]
    fn a_package_missing_from_the_metadata_is_an_error() {
        let e = in_metadata(&metadata(), Path::new("/elsewhere/Cargo.toml")).unwrap_err();
        assert!(e.contains("does not list /elsewhere/Cargo.toml"), "{e}");
    }
}
