//! Finding a package's `#[accel]` functions.
//!
//! Walks `src/`, `tests/`, `examples/` and `benches/` for `.rs` files, parses each with syn and
//! visits every item, so functions inside inline `mod`s and inside other functions' bodies are
//! found too. A function is lowered exactly as the attribute macro lowers it (the `#[accel]`
//! attribute itself removed), so both compute the same [`Program::fingerprint`].
//!
//! Limits: what is not written literally in those files (a function produced by `macro_rules!`,
//! a file pulled in by `include!` from elsewhere) is not seen; the macro then reports it. Files
//! that do not parse and functions the front end rejects are skipped: rustc and the macro report
//! them with their spans.

use accel_core::Program;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The directories of a package that may hold `#[accel]` functions.
pub const SOURCE_DIRS: [&str; 4] = ["src", "tests", "examples", "benches"];

/// One `#[accel]` function that lowered.
pub struct Found {
    /// The program the backends run (after the passes).
    pub program: Program,
    /// The program as the front end wrote it.
    pub source: Program,
    /// The file it is written in.
    pub file: PathBuf,
}

/// Every `#[accel]` function under the source directories of the package at `root`, in file
/// order; the second list holds the directories that exist (what the build script watches).
pub fn package(root: &Path) -> (Vec<Found>, Vec<PathBuf>) {
    let dirs: Vec<PathBuf> = SOURCE_DIRS.iter().map(|d| root.join(d)).filter(|d| d.is_dir()).collect();
    let mut files = Vec::new();
    for dir in &dirs {
        crate::files_under(dir, &mut files);
    }
    files.retain(|f| f.extension().is_some_and(|e| e == "rs"));
    let mut found = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        found.extend(in_source(&text).into_iter().map(|(source, program)| Found {
            program,
            source,
            file: file.clone(),
        }));
    }
    (found, dirs)
}

/// The programs (as written, and after the passes) of the `#[accel]` functions in one file's
/// text that the front end accepts.
pub fn in_source(text: &str) -> Vec<(Program, Program)> {
    let Ok(file) = syn::parse_file(text) else { return Vec::new() };
    let mut visitor = Collect::default();
    visitor.visit_file(&file);
    visitor.programs
}

#[derive(Default)]
struct Collect {
    programs: Vec<(Program, Program)>,
}

impl<'ast> Visit<'ast> for Collect {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if let Some(at) = item.attrs.iter().position(is_accel) {
            let mut item = item.clone();
            let attr = item.attrs.remove(at);
            let args = match attr.meta {
                syn::Meta::List(list) => list.tokens,
                _ => Default::default(),
            };
            let compiled =
                accel_core::pipeline::Options::parse(args).and_then(|options| accel_core::compile(&item, options));
            if let Ok(compiled) = compiled {
                self.programs.push((compiled.program, compiled.optimised));
            }
        }
        syn::visit::visit_item_fn(self, item);
    }
}

/// `#[accel]`, `#[accel::accel]` or `#[::accel::accel]`.
fn is_accel(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.as_slice() {
        [one] => one == "accel" && path.leading_colon.is_none(),
        [krate, one] => krate == "accel" && one == "accel",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
        use accel::prelude::*;

        /// Documented.
        #[accel]
        pub fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
            xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
        }

        mod inner {
            use accel::prelude::*;
            #[accel::accel]
            fn twice(xs: Vector<i32>) -> Vector<i32> {
                xs.map(|x| x * 2)
            }
        }

        #[test]
        fn nested() {
            #[::accel::accel]
            fn inc(xs: Vector<u32>) -> Vector<u32> {
                xs.map(|x| x + 1)
            }
        }

        #[accel]
        fn rejected(xs: Vector<f32>) -> Vector<f32> {
            xs.no_such_combinator()
        }

        #[other::accel]
        fn not_ours(xs: Vector<f32>) -> Vector<f32> {
            xs
        }

        fn plain() {}
    "#;

    #[test]
    fn finds_functions_everywhere_and_skips_rejected_ones() {
        let names: Vec<String> = in_source(SOURCE).into_iter().map(|(_, p)| p.name).collect();
        assert_eq!(names, ["dotp", "twice", "inc"]);
    }

    #[test]
    fn agrees_with_the_macro_on_fingerprints() {
        // The macro receives the function without its own attribute but with the others.
        let item: syn::ItemFn = syn::parse_str(
            "/// Documented.\npub fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b) }",
        )
        .unwrap();
        let program = accel_core::compile(&item, Default::default()).unwrap().optimised;
        assert_eq!(in_source(SOURCE)[0].1.fingerprint(), program.fingerprint());
    }

    #[test]
    fn files_that_do_not_parse_are_skipped() {
        assert!(in_source("#[accel] fn f(").is_empty());
    }

    #[test]
    fn walks_the_source_directories() {
        let root = std::env::temp_dir().join(format!("accel-build-scan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("src/deep/a.rs"), SOURCE).unwrap();
        std::fs::write(root.join("tests/b.rs"), "#[accel] fn id(xs: Vector<i64>) -> Vector<i64> { xs }").unwrap();
        std::fs::write(root.join("src/notes.txt"), SOURCE).unwrap();
        let (found, dirs) = package(&root);
        let names: Vec<&str> = found.iter().map(|f| f.program.name.as_str()).collect();
        assert_eq!(names, ["dotp", "twice", "inc", "id"]);
        assert_eq!(found[3].file, root.join("tests/b.rs"));
        assert_eq!(dirs, [root.join("src"), root.join("tests")]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
