//! Finding a package's `#[accel]` functions and lowering each.
//!
//! The functions are those of the package's `accel_core::library::Library` (every `#[accel]`
//! item of the `.rs` files under `src/`, `tests/`, `examples/` and `benches/`, inline `mod`s and
//! function bodies included), which is also what their calls of one another resolve in. A
//! function is lowered exactly as the attribute macro lowers it (the `#[accel]` attribute itself
//! removed, calls inlined from the same library), so both compute the same
//! [`Program::fingerprint`].
//!
//! Limits: what is not written literally in those files (a function produced by `macro_rules!`,
//! a file pulled in by `include!` from elsewhere) is not seen; the macro then reports it. Files
//! that do not parse, functions the front end rejects and scalar helpers (which are no programs
//! of their own) are skipped: rustc and the macro report the errors with their spans.

use accel_core::Program;
use accel_core::library::{Dependency, Library};
use std::path::{Path, PathBuf};

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
/// order, calls into its accel `dependencies` inlined; the second list holds the directories
/// that exist (what the build script watches).
pub fn package(root: &Path, dependencies: &[Dependency]) -> (Vec<Found>, Vec<PathBuf>) {
    let (library, dirs) = Library::of_package(root, dependencies);
    (lowered(&library), dirs)
}

/// The programs of the package's own functions of `library` that lower (a dependency's are its
/// own build's).
fn lowered(library: &Library) -> Vec<Found> {
    let mut found = Vec::new();
    for entry in library.own_functions() {
        let Ok(item) = entry.item() else { continue };
        if accel_core::frontend::is_scalar_helper(&item) {
            continue;
        }
        let compiled = entry
            .attribute_args()
            .and_then(accel_core::pipeline::Options::parse)
            .and_then(|options| accel_core::pipeline::compile_calling(&item, options, library, &entry.file));
        if let Ok(compiled) = compiled {
            found.push(Found { program: compiled.optimised, source: compiled.program, file: entry.file.clone() });
        }
    }
    found
}

/// The programs (as written, and after the passes) of the `#[accel]` functions in one file's
/// text that the front end accepts.
#[cfg(test)]
fn in_source(text: &str) -> Vec<(Program, Program)> {
    let mut library = Library::default();
    library.add_source(&[], Path::new("text.rs"), text);
    lowered(&library).into_iter().map(|f| (f.source, f.program)).collect()
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
        let (found, dirs) = package(&root, &[]);
        let names: Vec<&str> = found.iter().map(|f| f.program.name.as_str()).collect();
        assert_eq!(names, ["dotp", "twice", "inc", "id"]);
        assert_eq!(found[3].file, root.join("tests/b.rs"));
        assert_eq!(dirs, [root.join("src"), root.join("tests")]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn calls_into_dependencies_are_inlined_and_their_functions_left_to_them() {
        let root = std::env::temp_dir().join(format!("accel-build-deps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (app, geo) = (root.join("app"), root.join("geo-kit"));
        std::fs::create_dir_all(app.join("src")).unwrap();
        std::fs::create_dir_all(geo.join("src/shapes")).unwrap();
        std::fs::write(
            app.join("src/main.rs"),
            "#[accel] fn area(xs: Vector<f32>) -> Scalar<f32> { geo::shapes::squares(xs).sum() }",
        )
        .unwrap();
        // Inside the dependency, `crate::` is the dependency's root.
        std::fs::write(geo.join("src/lib.rs"), "mod shapes;\n#[accel] pub fn sq(x: f32) -> f32 { x * x }").unwrap();
        std::fs::write(
            geo.join("src/shapes/mod.rs"),
            "#[accel] pub fn squares(xs: Vector<f32>) -> Vector<f32> { xs.map(|x| crate::sq(x)) }",
        )
        .unwrap();
        let geo_dependency = Dependency { name: "geo".into(), root: geo.clone() };
        let (found, _) = package(&app, &[geo_dependency]);
        let names: Vec<&str> = found.iter().map(|f| f.program.name.as_str()).collect();
        assert_eq!(names, ["area"], "the dependency's own functions are its build's");
        use accel_core::value::{ArrayValue, ElemValue, ScalarValue, Value};
        let f32s = |xs: &[f32]| xs.iter().map(|&x| ElemValue::Scalar(ScalarValue::F32(x))).collect::<Vec<_>>();
        let f32 = accel_core::types::ElemType::Scalar(accel_core::types::ScalarType::F32);
        let xs = ArrayValue::new(f32.clone(), vec![3], f32s(&[1.0, 2.0, 3.0])).unwrap();
        let sum = accel_core::interp::eval(&found[0].source, vec![Value::Array(xs)]).unwrap();
        assert_eq!(sum, Value::Array(ArrayValue::new(f32, vec![], f32s(&[14.0])).unwrap()));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
