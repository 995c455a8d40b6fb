//! The layout of the directory a package's build script writes its GPU code to and the
//! `#[accel]` macro reads it from (`ACCEL_PTX_DIR`, `OUT_DIR/accel`): written down once for both.
//!
//! ```text
//! OUT_DIR/accel/
//!   dependencies.json          the package's accel dependencies (library::DEPENDENCIES_FILE)
//!   programs/<fingerprint>     one marker per program the build compiled: its unit, on line 1
//!   units/<unit>/accel.ptx     the PTX module of one unit
//!   units/<unit>/accel.sm_90.cubin, accel.sm_80.cubin   its SASS, when ptxas was found
//! ```
//!
//! A *unit* is the GPU code of one source file: the programs of the `#[accel]` functions written
//! in it, compiled into one module of their own. Editing a function therefore rebuilds only the
//! module of its file, and only the functions of that file embed new GPU code, so that the
//! compiler's incremental mode reuses the code of every other function.
//!
//! `units/` exists exactly when the build compiled GPU code (the `cuda` feature): without it the
//! macro tells the user why there is none.
//!
//! ```
//! use accel_core::ptx_dir;
//! use std::path::Path;
//!
//! let unit = ptx_dir::unit_name(Path::new("src/kernels/saxpy.rs"));
//! assert_eq!(unit, "src-kernels-saxpy-rs");
//! let marker = ptx_dir::marker_text(&unit, "saxpy", Path::new("/p/src/kernels/saxpy.rs"));
//! assert_eq!(ptx_dir::unit_of_marker(&marker), Some(unit.as_str()));
//! let dir = Path::new("/out/accel");
//! assert_eq!(ptx_dir::module(&ptx_dir::unit_dir(dir, &unit)), dir.join("units/src-kernels-saxpy-rs/accel.ptx"));
//! ```

use std::path::{Path, PathBuf};

/// The directory of the units, under the build's directory.
pub const UNITS: &str = "units";

/// The directory of the markers, under the build's directory.
pub const PROGRAMS: &str = "programs";

/// The GPU architectures (`sm` versions) whose SASS the build makes when it finds ptxas.
pub const SASS_ARCHS: [u32; 2] = [80, 90];

/// The name of the unit of `file`, a path relative to the package's root: its components joined
/// by `-`, every character but ASCII letters and digits made a `-` (so that it names a directory
/// and a cargo package everywhere; `_` too, since cargo names a package's crate with `-` made
/// `_`), lower case.
pub fn unit_name(file: &Path) -> String {
    let text: String = file
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    text.trim_matches('-').to_string()
}

/// The directory of `unit`'s module under the build's directory `dir`.
pub fn unit_dir(dir: &Path, unit: &str) -> PathBuf {
    dir.join(UNITS).join(unit)
}

/// The PTX module in a unit's directory.
pub fn module(unit_dir: &Path) -> PathBuf {
    unit_dir.join("accel.ptx")
}

/// The SASS for `sm` (e.g. 90) in a unit's directory.
pub fn cubin(unit_dir: &Path, sm: u32) -> PathBuf {
    unit_dir.join(format!("accel.sm_{sm}.cubin"))
}

/// The marker of the program with `fingerprint` under the build's directory `dir`.
pub fn marker(dir: &Path, fingerprint: u64) -> PathBuf {
    dir.join(PROGRAMS).join(format!("{fingerprint:016x}"))
}

/// A marker's text: the unit that holds the program, then the function it was seen as, for
/// whoever reads the directory.
pub fn marker_text(unit: &str, function: &str, file: &Path) -> String {
    format!("{unit}\n{function} in {}\n", file.display())
}

/// The unit a marker names.
pub fn unit_of_marker(text: &str) -> Option<&str> {
    text.lines().next().filter(|unit| !unit.is_empty() && unit_name(Path::new(unit)) == *unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_are_plain_words() {
        assert_eq!(unit_name(Path::new("tests/corpus/reduce.rs")), "tests-corpus-reduce-rs");
        assert_eq!(unit_name(Path::new("src/Ünïcode file.rs")), "src--n-code-file-rs");
        // `src/a_b.rs` and `src/a/b.rs` get one name (the build numbers the second), since their
        // crates would be named alike.
        assert_eq!(unit_name(Path::new("src/a_b.rs")), "src-a-b-rs");
        assert_eq!(unit_name(Path::new("src/a/b.rs")), "src-a-b-rs");
    }

    #[test]
    fn a_marker_without_a_unit_names_none() {
        assert_eq!(unit_of_marker(""), None);
        assert_eq!(unit_of_marker("\nf in x.rs\n"), None);
        assert_eq!(unit_of_marker("../escape\n"), None);
        assert_eq!(unit_of_marker("src-a-rs\nf in src/a.rs\n"), Some("src-a-rs"));
    }
}
