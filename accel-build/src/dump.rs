//! `ACCEL_DUMP`: every stage of the compilation, written at build time for reading.
//!
//! `ACCEL_DUMP` is a comma-separated list of stages (or `all`):
//! - `ir`: each function's IR as the front end wrote it (`<fn>.ir.txt`);
//! - `fused`: the IR after the fusion passes (`<fn>.fused.txt`);
//! - `plan`: the kernel plan as text and as Graphviz (`<fn>.plan.txt`, `<fn>.plan.dot`);
//! - `rust`: the generated Rust, for the CPU backend (`<fn>.cpu.rs`) and for the device crate of
//!   each unit, the functions of one source file (`<unit>.device.rs`);
//! - `ptx`: each unit's PTX module (`<unit>.ptx`).
//!
//! The files go to `<target>/<profile>/accel-dump/<package>/`, which the build prints as a
//! warning. Generated Rust is formatted with `rustfmt` when one is on PATH.

use crate::scan::Found;
use crate::{Result, error, write};
use std::path::{Path, PathBuf};

/// The stages `ACCEL_DUMP` can name.
const STAGES: [&str; 5] = ["ir", "fused", "plan", "rust", "ptx"];

/// What the device build of a unit produced: its crate's source and the module.
pub struct Device {
    pub unit: String,
    pub source: String,
    pub ptx: PathBuf,
}

/// The stages `ACCEL_DUMP` asks for (none when it is unset or empty).
pub fn stages() -> Result<Vec<&'static str>> {
    let Ok(list) = std::env::var("ACCEL_DUMP") else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item == "all" {
            return Ok(STAGES.to_vec());
        }
        match STAGES.iter().find(|s| **s == item) {
            Some(s) => out.push(*s),
            None => {
                return Err(error(
                    "reading ACCEL_DUMP",
                    format!("unknown stage `{item}`: the stages are {} (or `all`)", STAGES.join(", ")),
                ));
            }
        }
    }
    Ok(out)
}

/// Writes all the `stages` of the `found` functions (and of the device build of each unit, when
/// there is one) into `dir`.
pub fn all(stages: &[&str], found: &[Found], devices: &[Device], dir: &Path) -> Result<()> {
    if stages.is_empty() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    let mut names = std::collections::HashMap::new();
    for f in found {
        // Equal names in different files get the fingerprint too.
        let count = names.entry(f.program.name.clone()).or_insert(0usize);
        *count += 1;
        let stem = if *count == 1 {
            f.program.name.clone()
        } else {
            format!("{}-{:016x}", f.program.name, f.program.fingerprint())
        };
        let file = |ext: &str| dir.join(format!("{stem}.{ext}"));
        let origin = format!("// `#[accel] fn {}` in {}\n", f.program.name, f.file.display());
        for stage in stages {
            match *stage {
                "ir" => write(&file("ir.txt"), &format!("{origin}{}", f.source))?,
                "fused" => write(&file("fused.txt"), &format!("{origin}{}", f.program))?,
                "plan" => {
                    let plan = accel_core::Plan::build(&f.program);
                    write(&file("plan.txt"), &format!("{origin}{plan}"))?;
                    write(&file("plan.dot"), &plan.to_dot())?;
                }
                "rust" => {
                    let cpu = accel_core::codegen::cpu_function(&f.program)
                        .map_err(|e| error("generating the CPU code for ACCEL_DUMP", e))?;
                    write(&file("cpu.rs"), &format!("{origin}{}", rustfmt(&cpu.to_string())))?;
                }
                _ => {}
            }
        }
    }
    for device in devices {
        if stages.contains(&"rust") {
            write(&dir.join(format!("{}.device.rs", device.unit)), &rustfmt(&device.source))?;
        }
        if stages.contains(&"ptx") {
            std::fs::copy(&device.ptx, dir.join(format!("{}.ptx", device.unit)))
                .map_err(|e| error("copying the PTX for ACCEL_DUMP", e))?;
        }
    }
    println!(
        "cargo:warning=accel: ACCEL_DUMP wrote {} of {} functions to {}",
        stages.join(", "),
        found.len(),
        dir.display()
    );
    Ok(())
}

/// `code` formatted by rustfmt, or as it is when there is no rustfmt (or it fails).
fn rustfmt(code: &str) -> String {
    use std::io::Write as _;
    let child = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return code.to_string() };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(code.as_bytes());
    }
    match child.wait_with_output() {
        Ok(out) if out.status.success() && !out.stdout.is_empty() => String::from_utf8_lossy(&out.stdout).into_owned(),
        _ => code.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stages_are_the_documented_ones() {
        assert_eq!(super::STAGES, ["ir", "fused", "plan", "rust", "ptx"]);
    }
}
