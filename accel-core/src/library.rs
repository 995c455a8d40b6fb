//! The `#[accel]` functions of a package, which its `#[accel]` functions may call.
//!
//! A call of one `#[accel]` function from another is inlined at build time by the front end
//! (`frontend::call`): the callee's body is lowered in the caller's IR, with its parameters bound
//! to the arguments, so fusion works across the call and a value the caller shares stays shared.
//! The attribute macro and the build script each need the callee's source, which neither is
//! given: both find it here, by the same scan of the package's source directories, so that both
//! lower every caller to the same program (the build script's markers match the macro's
//! fingerprints).
//!
//! A function is kept as the text of its item (without its `#[accel]` attribute, whose
//! arguments are kept beside it): text, not syntax trees, because a syntax tree parsed inside one
//! macro invocation must not be used in another.
//!
//! Names resolve as paths: `sq(xs)` or `stats::sq(xs)` names the function whose module path
//! ends with the written path (`crate::`, `self::` and `super::` prefixes are dropped), preferring
//! the path as Rust reads it, then the functions of the caller's own file, then those of its own
//! crate; two candidates are an error that lists them. A module path is where the file sits
//! (`src/stats/mod.rs` and `src/stats.rs` hold `stats`, a file under `tests/` or `examples/` is a
//! crate of its own) followed by the inline `mod`s around the item.
//!
//! The accel packages the package depends on ([`Dependency`]: packages that depend on `accel`
//! themselves, found by the build script with `cargo metadata` and listed for the macro in
//! [`DEPENDENCIES_FILE`]) add the functions of their `src/` directories, each under a first module
//! named as the package's code names the crate: `geometry::norm(xs)` calls `norm` of the
//! dependency `geometry`, and inside it `crate::` means that crate.
//!
//! Limits: what is not written literally in the files (a function made by `macro_rules!`) is not
//! found; the call is then an error.

use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The directories of a package that may hold `#[accel]` functions.
pub const SOURCE_DIRS: [&str; 4] = ["src", "tests", "examples", "benches"];

/// The file, beside the module the build script writes (`ACCEL_PTX_DIR`), that lists the
/// package's accel dependencies for the macro, as JSON.
pub const DEPENDENCIES_FILE: &str = "dependencies.json";

/// An accel package that the package depends on (directly or through others).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dependency {
    /// The name the package's code knows its library by (`geometry` for a dependency
    /// `geometry-kit` whose library is `geometry`, or the name it is renamed to).
    pub name: String,
    /// The directory of its `Cargo.toml`.
    pub root: PathBuf,
}

impl Dependency {
    /// The dependencies listed in `file` (as the build script wrote them); none when there is no
    /// such file (a package without the build script, or one that depends on no accel package).
    pub fn read_list(file: &Path) -> Vec<Dependency> {
        std::fs::read_to_string(file).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
    }

    /// `list` as the text of a [`DEPENDENCIES_FILE`].
    pub fn write_list(list: &[Dependency]) -> String {
        serde_json::to_string_pretty(list).expect("paths and names serialise")
    }
}

/// What an entry of the library is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `#[accel]` function.
    Function,
    /// A `const` item of scalar type, which `#[accel]` code may name.
    Const,
}

/// One `#[accel]` function or `const` item of the package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    /// Its module path and name, from the package's root (`["stats", "sq"]`).
    pub path: Vec<String>,
    /// The file it is written in.
    pub file: PathBuf,
    /// The dependency it belongs to (`None`: the package itself).
    pub krate: Option<String>,
    /// The item (a function without its `#[accel]` attribute).
    pub text: String,
    /// The arguments of a function's `#[accel(..)]` attribute (empty for a bare `#[accel]`).
    pub args: String,
}

impl Entry {
    /// The function's name.
    pub fn name(&self) -> &str {
        self.path.last().map_or("", String::as_str)
    }

    /// The function's item, parsed anew (see the module documentation).
    pub fn item(&self) -> syn::Result<syn::ItemFn> {
        syn::parse_str(&self.text)
    }

    /// The `const` item, parsed anew.
    pub fn const_item(&self) -> syn::Result<syn::ItemConst> {
        syn::parse_str(&self.text)
    }

    /// The arguments of its attribute, as tokens.
    pub fn attribute_args(&self) -> syn::Result<proc_macro2::TokenStream> {
        syn::parse_str(&self.args)
    }
}

/// The `#[accel]` functions one function may call.
#[derive(Clone, Debug, Default)]
pub struct Library {
    entries: Vec<Entry>,
    /// The files and names of the `#[accel]` functions written in `impl` or `trait` blocks,
    /// which are no functions of the library: the macro reports them.
    in_impls: Vec<(PathBuf, String)>,
    /// The source directory (canonical) and name of each dependency added.
    dependencies: Vec<(PathBuf, String)>,
    /// The names brought into scope by `use` items, which calls may name.
    imports: Vec<Import>,
}

/// A name that a `use` item brings into a module: `use geo::shapes::squares as sq;` in the module
/// `stats` brings `sq`, naming `geo::shapes::squares`.
#[derive(Clone, Debug)]
struct Import {
    file: PathBuf,
    module: Vec<String>,
    name: String,
    path: Vec<String>,
}

impl Library {
    /// No functions: what a function that calls none is lowered with.
    pub const EMPTY: Library =
        Library { entries: Vec::new(), in_impls: Vec::new(), dependencies: Vec::new(), imports: Vec::new() };

    /// Every `#[accel]` function in the source directories of the package at `root` and in the
    /// `src/` directories of its accel `dependencies`, in file order; the second list holds the
    /// package's source directories that exist (what a build script watches, beside the
    /// dependencies' `src/`).
    pub fn of_package(root: &Path, dependencies: &[Dependency]) -> (Library, Vec<PathBuf>) {
        let dirs: Vec<PathBuf> = SOURCE_DIRS.iter().map(|d| root.join(d)).filter(|d| d.is_dir()).collect();
        let mut library = Library::default();
        for file in rust_files(&dirs) {
            library.add_file(root, &file);
        }
        for dependency in dependencies {
            let src = dependency.root.join("src");
            library.dependencies.push((canonical(&src), dependency.name.clone()));
            for file in rust_files(std::slice::from_ref(&src)) {
                library.add_file_of(&dependency.root, Some(&dependency.name), &file);
            }
        }
        (library, dirs)
    }

    /// Adds the functions of one file, unless the library has them already (a file outside the
    /// package's source directories, such as a test case compiled by itself).
    pub fn add_file(&mut self, root: &Path, file: &Path) {
        self.add_file_of(root, None, file);
    }

    /// Adds the functions of one file of the crate `krate` (`None`: the package itself) whose
    /// package lies at `root`; a dependency's modules sit under its name.
    fn add_file_of(&mut self, root: &Path, krate: Option<&str>, file: &Path) {
        let file = canonical(file);
        if self.entries.iter().any(|e| e.file == file) {
            return;
        }
        let Ok(text) = std::fs::read_to_string(&file) else { return };
        let module: Vec<String> = krate.map(String::from).into_iter().chain(module_of(root, &file)).collect();
        self.add_entries(&module, krate, &file, &text);
    }

    /// Adds the functions of one file's text, whose module path is `module`. A file that does
    /// not parse adds nothing: rustc reports it.
    pub fn add_source(&mut self, module: &[String], file: &Path, text: &str) {
        self.add_entries(module, None, file, text);
    }

    /// Adds the functions of one file of the crate `krate` (`None`: the package itself).
    fn add_entries(&mut self, module: &[String], krate: Option<&str>, file: &Path, text: &str) {
        let Ok(parsed) = syn::parse_file(text) else { return };
        let mut visitor = Collect {
            module: module.to_vec(),
            krate,
            file,
            entries: &mut self.entries,
            in_impls: &mut self.in_impls,
            imports: &mut self.imports,
            in_functions: 0,
        };
        visitor.visit_file(&parsed);
    }

    /// Whether the `#[accel]` function `name` of the file `file` is written in an `impl` or
    /// `trait` block (and no free function of that name is in the file).
    pub fn is_in_impl(&self, file: &Path, name: &str) -> bool {
        let file = canonical(file);
        self.in_impls.iter().any(|(f, n)| *f == file && n == name)
            && !self.functions().any(|e| e.file == file && e.name() == name)
    }

    /// Every function, in file order.
    pub fn functions(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.kind == Kind::Function)
    }

    /// The functions of the package itself (not of its dependencies), in file order.
    pub fn own_functions(&self) -> impl Iterator<Item = &Entry> {
        self.functions().filter(|e| e.krate.is_none())
    }

    /// The dependency whose source holds `file` (as [`canonical`] gives it), or `None` for a
    /// file of the package.
    fn crate_of(&self, file: &Path) -> Option<&str> {
        self.dependencies.iter().find(|(src, _)| file.starts_with(src)).map(|(_, name)| name.as_str())
    }

    /// The path from the package's root that Rust reads `path` as, written in `module` of the
    /// file `from`: relative to the module, or after `crate::` (the root of the file's own
    /// crate), `self::` and `super::`; a first name that a `use` of the module brings is read as
    /// the imported path, and one that names a dependency as that dependency.
    pub fn rust_reading(&self, path: &[String], from: &Path, module: &[String]) -> Vec<String> {
        let named = named_part(path);
        if named.len() == path.len()
            && let Some(first) = named.first()
        {
            let imported = self.imports.iter().find(|i| i.file == from && i.module == module && i.name == *first);
            if let Some(import) = imported {
                // An imported path is not read through imports again (`use stats::stats;` would
                // not end).
                let mut reading = self.reading_without_imports(&import.path, from, module);
                reading.extend(named[1..].iter().cloned());
                return reading;
            }
        }
        self.reading_without_imports(path, from, module)
    }

    /// [`Library::rust_reading`] of a path whose first name is not one a `use` brings.
    fn reading_without_imports(&self, path: &[String], from: &Path, module: &[String]) -> Vec<String> {
        let named = named_part(path);
        if named.len() == path.len()
            && let Some(first) = named.first()
            && self.dependencies.iter().any(|(_, name)| name == first)
        {
            return named.to_vec();
        }
        let crate_depth = usize::from(self.crate_of(from).is_some());
        let mut base = module.to_vec();
        for first in &path[..path.len() - named.len()] {
            match first.as_str() {
                "crate" => base.truncate(crate_depth),
                "super" if base.len() > crate_depth => {
                    base.pop();
                }
                _ => {}
            }
        }
        base.extend(named.iter().cloned());
        base
    }

    /// The module path of the function `name` of the file `file`, when the library holds
    /// exactly one such function (else the file's own module path is unknown: empty).
    pub fn module_of_function(&self, file: &Path, name: &str) -> Vec<String> {
        let file = canonical(file);
        let mut found = self.functions().filter(|e| e.file == file && e.name() == name);
        match (found.next(), found.next()) {
            (Some(e), None) => e.path[..e.path.len() - 1].to_vec(),
            _ => Vec::new(),
        }
    }

    /// The function (or `const`, by `kind`) that `path` names, seen from a function of the
    /// module `module` in the file `from` (as [`canonical`] gives it): `Ok(None)` when none has that name, an error listing
    /// the candidates when several do equally well. The path as Rust reads it (relative to the
    /// module, or after `crate::`, `self::`, `super::`) wins; then an entry whose module path
    /// ends with the written path, in the same file, then in the same crate, then anywhere (a
    /// dependency's function named through a `use`).
    pub fn resolve(
        &self,
        kind: Kind,
        path: &[String],
        from: &Path,
        module: &[String],
    ) -> Result<Option<&Entry>, String> {
        let rest = named_part(path);
        if rest.is_empty() {
            return Ok(None);
        }
        let exact = self.rust_reading(path, from, module);
        let own_crate = self.crate_of(from);
        let ends_with = |e: &&Entry| e.path.len() >= rest.len() && e.path[e.path.len() - rest.len()..] == *rest;
        let of_kind = || self.entries.iter().filter(|e| e.kind == kind);
        // Each tier is searched only when the ones before it found nothing.
        let tiers: [&dyn Fn(&&Entry) -> bool; 4] = [
            &|e| e.path == exact,
            &|e| e.file == from && ends_with(e),
            &|e| e.krate.as_deref() == own_crate && ends_with(e),
            &ends_with,
        ];
        let candidates = tiers
            .iter()
            .map(|tier| of_kind().filter(tier).collect::<Vec<_>>())
            .find(|c| !c.is_empty())
            .unwrap_or_default();
        match candidates.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            several => {
                let file =
                    |e: &Entry| e.file.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned());
                let list: Vec<String> =
                    several.iter().map(|e| format!("`{}` in {}", e.path.join("::"), file(e))).collect();
                Err(format!(
                    "`{}` names several {}: {}; write more of its module path",
                    path.join("::"),
                    if kind == Kind::Function { "#[accel] functions" } else { "constants" },
                    list.join(", ")
                ))
            }
        }
    }
}

/// `path` without its leading `crate`, `self` and `super`.
fn named_part(path: &[String]) -> &[String] {
    let skip = path.iter().take_while(|s| matches!(s.as_str(), "crate" | "self" | "super")).count();
    &path[skip..]
}

/// `#[accel]`, `#[accel::accel]` or `#[::accel::accel]`.
pub fn is_accel(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.as_slice() {
        [one] => one == "accel" && path.leading_colon.is_none(),
        [krate, one] => krate == "accel" && one == "accel",
        _ => false,
    }
}

/// The `.rs` files under `dirs`, in sorted order.
fn rust_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in dirs {
        files_under(dir, &mut files);
    }
    files.retain(|f| f.extension().is_some_and(|e| e == "rs"));
    files
}

/// The files under `dir`, recursively, in sorted order (links to directories are not followed,
/// so that a link loop cannot recurse forever).
pub fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if path.is_dir() && !is_link {
            files_under(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

/// The path as the file system knows it, so that a file named two ways is one file.
pub fn canonical(file: &Path) -> PathBuf {
    file.canonicalize().unwrap_or_else(|_| file.to_path_buf())
}

/// The module path of a file of the package at `root`: its directories below the source
/// directory, then its name unless that is `lib`, `main` or `mod`. Under `tests/`, `examples/`
/// and `benches/` each top-level file is a crate of its own, so its own name is dropped too. A
/// file outside the package is a crate root.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let root = canonical(root);
    let Ok(relative) = file.strip_prefix(&root) else { return Vec::new() };
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.is_empty() {
        return parts;
    }
    let top = parts.remove(0);
    if let Some(last) = parts.last_mut() {
        *last = last.trim_end_matches(".rs").to_string();
    }
    let crate_root = parts.len() == 1 && top != "src";
    if matches!(parts.last().map(String::as_str), Some("lib" | "main" | "mod")) || crate_root {
        parts.pop();
    }
    parts
}

impl Collect<'_> {
    /// The names `tree` brings, below the path `prefix` (a glob brings none that can be told).
    fn add_imports(&mut self, tree: &syn::UseTree, mut prefix: Vec<String>) {
        let mut add = |name: String, path: Vec<String>| {
            let module = self.module.clone();
            self.imports.push(Import { file: self.file.to_path_buf(), module, name, path });
        };
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.add_imports(&p.tree, prefix);
            }
            syn::UseTree::Name(n) if n.ident != "self" => {
                prefix.push(n.ident.to_string());
                add(n.ident.to_string(), prefix);
            }
            syn::UseTree::Name(_) => {
                let name = prefix.last().cloned().unwrap_or_default();
                add(name, prefix);
            }
            syn::UseTree::Rename(r) => {
                if r.ident != "self" {
                    prefix.push(r.ident.to_string());
                }
                add(r.rename.to_string(), prefix);
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.add_imports(tree, prefix.clone());
                }
            }
            syn::UseTree::Glob(_) => {}
        }
    }
}

/// Collects the `#[accel]` functions of one file, with the module path of each.
struct Collect<'a> {
    module: Vec<String>,
    krate: Option<&'a str>,
    file: &'a Path,
    entries: &'a mut Vec<Entry>,
    in_impls: &'a mut Vec<(PathBuf, String)>,
    imports: &'a mut Vec<Import>,
    /// How many function bodies the visit is inside (their `const`s are theirs alone).
    in_functions: usize,
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if let Some(at) = item.attrs.iter().position(is_accel) {
            let mut item = item.clone();
            let attr = item.attrs.remove(at);
            let args = match attr.meta {
                syn::Meta::List(list) => list.tokens.to_string(),
                _ => String::new(),
            };
            let mut path = self.module.clone();
            path.push(item.sig.ident.to_string());
            let text = quote::quote!(#item).to_string();
            self.entries.push(Entry {
                kind: Kind::Function,
                path,
                file: self.file.to_path_buf(),
                krate: self.krate.map(String::from),
                text,
                args,
            });
        }
        self.in_functions += 1;
        syn::visit::visit_item_fn(self, item);
        self.in_functions -= 1;
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if item.attrs.iter().any(is_accel) {
            self.in_impls.push((self.file.to_path_buf(), item.sig.ident.to_string()));
        }
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if item.attrs.iter().any(is_accel) {
            self.in_impls.push((self.file.to_path_buf(), item.sig.ident.to_string()));
        }
        syn::visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if self.in_functions == 0 {
            self.add_imports(&item.tree, Vec::new());
        }
    }

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if self.in_functions > 0 {
            return;
        }
        let mut path = self.module.clone();
        path.push(item.ident.to_string());
        let text = quote::quote!(#item).to_string();
        self.entries.push(Entry {
            kind: Kind::Const,
            path,
            file: self.file.to_path_buf(),
            krate: self.krate.map(String::from),
            text,
            args: String::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A package `app` whose `src/lib.rs` and `src/stats.rs` call into the dependency `geo`.
    struct Packages {
        root: PathBuf,
    }

    impl Packages {
        /// The files under a directory of its own, named by `test` (tests run in parallel).
        fn new(test: &str) -> Packages {
            let root = std::env::temp_dir().join(format!("accel-library-{test}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let files = [
                (
                    "app/src/lib.rs",
                    "use geo::shapes::squares as sqs;\nuse stats::stats;\n#[accel] pub fn sq(x: f32) -> f32 { x }",
                ),
                ("app/src/stats.rs", "use geo::sq;\n#[accel] fn f(x: f32) -> f32 { x }"),
                ("geo/src/lib.rs", "pub mod shapes;\n#[accel] pub fn sq(x: f32) -> f32 { x * x }"),
                ("geo/src/shapes.rs", "#[accel] pub fn squares(xs: Vector<f32>) -> Vector<f32> { xs }"),
            ];
            for (file, text) in files {
                let file = root.join(file);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, text).unwrap();
            }
            Packages { root }
        }

        fn file(&self, file: &str) -> PathBuf {
            canonical(&self.root.join(file))
        }
    }

    impl Drop for Packages {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    #[test]
    fn dependencies_resolve_by_name_import_and_crate_root() {
        let packages = Packages::new("resolve");
        let geo = Dependency { name: "geo".into(), root: packages.root.join("geo") };
        let (library, _) = Library::of_package(&packages.root.join("app"), &[geo]);
        let own: Vec<String> = library.own_functions().map(|e| e.path.join("::")).collect();
        assert_eq!(own, ["sq", "stats::f"]);
        let path = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
        let found = |p: &str, from: &str, module: &[&str]| {
            let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
            let entry = library.resolve(Kind::Function, &path(p), &packages.file(from), &module).unwrap();
            entry.map(|e| (e.path.join("::"), e.krate.clone()))
        };
        let geo = |p: &str| Some((p.to_string(), Some("geo".to_string())));
        // Written with the dependency's name, from any module.
        assert_eq!(found("geo::sq", "app/src/lib.rs", &[]), geo("geo::sq"));
        assert_eq!(found("geo::shapes::squares", "app/src/stats.rs", &["stats"]), geo("geo::shapes::squares"));
        // Through a `use`, renamed or not.
        assert_eq!(found("sqs", "app/src/lib.rs", &[]), geo("geo::shapes::squares"));
        assert_eq!(found("sq", "app/src/stats.rs", &["stats"]), geo("geo::sq"));
        // An import that names itself is read once.
        assert_eq!(found("stats", "app/src/lib.rs", &[]), None);
        // The package's own function wins where no `use` says otherwise.
        assert_eq!(found("sq", "app/src/lib.rs", &[]), Some(("sq".to_string(), None)));
        // Inside the dependency, `crate::` is its root.
        assert_eq!(found("crate::sq", "geo/src/shapes.rs", &["geo", "shapes"]), geo("geo::sq"));
        assert_eq!(found("super::sq", "geo/src/shapes.rs", &["geo", "shapes"]), geo("geo::sq"));
    }

    #[test]
    fn the_list_of_dependencies_reads_back_as_written() {
        let packages = Packages::new("list");
        let list = vec![Dependency { name: "geo".into(), root: packages.root.join("geo") }];
        let file = packages.root.join(DEPENDENCIES_FILE);
        std::fs::write(&file, Dependency::write_list(&list)).unwrap();
        assert_eq!(Dependency::read_list(&file), list);
        assert_eq!(Dependency::read_list(&packages.root.join("missing.json")), []);
    }
}
