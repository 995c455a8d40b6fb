//! Modules and kernels: each module is loaded once per [`Gpu`], and each kernel in it is looked
//! up once by name.
//!
//! A [`DeviceModule`] is the PTX of a source file's `#[accel]` functions and the machine code (SASS) that ptxas made of it at
//! build time for some architectures. Loading uses the SASS made for the device's architecture
//! (or an older one of the same major version, which runs on it) and otherwise the PTX, which
//! the driver then compiles for the device (its JIT, which caches the result on disk); a SASS
//! image the driver refuses also falls back to the PTX. `ACCEL_SASS=off` always loads the PTX.
//!
//! The cache is keyed by the address and length of the `&'static str`, which no other text can
//! share, so a lookup never hashes the (possibly megabytes long) PTX. A kernel's parameter layout
//! is read from the driver when it is first looked up; every parameter must be one 8-byte word,
//! which is what lets [`Gpu::launch`] check the argument count before the driver reads it.

use super::driver::{self, Function, Module, backend_error, describe};
use super::{Device, Gpu, lock};
use accel_core::{Error, Result};
use accel_kernels::abi::BLOCK_THREADS;
use cudarc::driver::sys::CUresult;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::ffi::CString;
use std::fmt;
use std::sync::Arc;

/// The modules loaded into one device, by PTX text.
#[derive(Default)]
pub(super) struct Modules {
    loaded: HashMap<(usize, usize), Loaded>,
}

struct Loaded {
    module: Module,
    kernels: HashMap<String, Entrypoint>,
}

#[derive(Clone)]
struct Entrypoint {
    function: Function,
    name: Arc<str>,
    parameters: usize,
    /// Blocks of `BLOCK_THREADS` threads a multiprocessor holds at once (registers permitting).
    resident_blocks: usize,
    /// Local memory a thread uses, in bytes (its stack frame and spilled registers).
    local_bytes: usize,
}

impl Modules {
    /// Removes every module, for the caller to unload.
    fn drain(&mut self) -> Vec<Module> {
        self.loaded.drain().map(|(_, loaded)| loaded.module).collect()
    }
}

/// The GPU code of a package as its build embedded it (the macro's `f::MODULE`).
#[derive(Debug)]
pub struct DeviceModule {
    /// The PTX module, which every CUDA GPU from compute capability 8.0 on can load.
    pub ptx: &'static str,
    /// Machine code of the same module: (`sm` version such as 90, cubin image).
    pub sass: &'static [(u32, &'static [u8])],
}

impl DeviceModule {
    /// The SASS image to load on a device of compute capability `(major, minor)`: the one made
    /// for it, else the newest one of the same major version made for an older minor.
    pub fn sass_for(&self, (major, minor): (usize, usize)) -> Option<&'static [u8]> {
        let wanted = (major * 10 + minor) as u32;
        self.sass
            .iter()
            .filter(|(sm, _)| *sm / 10 == major as u32 && *sm <= wanted)
            .max_by_key(|(sm, _)| *sm)
            .map(|&(_, image)| image)
    }
}

/// A kernel of a module loaded into a [`Gpu`]. Cloning is cheap; the module stays loaded while
/// any clone lives.
#[derive(Clone)]
pub struct Kernel {
    entry: Entrypoint,
    pub(super) device: Arc<Device>,
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// Number of `u64` words the kernel takes.
    pub fn parameters(&self) -> usize {
        self.entry.parameters
    }

    /// Blocks of `BLOCK_THREADS` threads of this kernel that one multiprocessor runs at once.
    pub fn resident_blocks(&self) -> usize {
        self.entry.resident_blocks
    }

    /// Local memory a thread of this kernel uses, in bytes: its stack frame and the registers
    /// the assembler spilled.
    pub fn local_bytes(&self) -> usize {
        self.entry.local_bytes
    }

    pub(super) fn function(&self) -> Function {
        self.entry.function
    }
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({}, {} parameters)", self.entry.name, self.entry.parameters)
    }
}

impl Gpu {
    /// The kernel `name` of the PTX module `ptx`, loading the module on first use.
    ///
    /// A module the driver cannot load is `Error::Backend` with the JIT compiler's log; a
    /// missing kernel, or one with a parameter that is not an 8-byte word, is `Error::Backend`
    /// naming the kernel.
    pub fn kernel(&self, ptx: &'static str, name: &str) -> Result<Kernel> {
        self.kernel_of(ptx, &[], name)
    }

    /// The kernel `name` of `module`, loading the module on first use (its SASS for this device
    /// when there is one, see [`DeviceModule`]); errors as [`Gpu::kernel`].
    pub fn module_kernel(&self, module: &DeviceModule, name: &str) -> Result<Kernel> {
        self.kernel_of(module.ptx, module.sass, name)
    }

    fn kernel_of(&self, ptx: &'static str, sass: &'static [(u32, &'static [u8])], name: &str) -> Result<Kernel> {
        let mut modules = lock(&self.device.modules);
        let loaded = match modules.loaded.entry((ptx.as_ptr() as usize, ptx.len())) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => {
                let module = DeviceModule { ptx, sass };
                let sass = if self.sass_enabled { module.sass_for(self.compute_capability) } else { None };
                // A driver that refuses the machine code still gets the PTX.
                let loaded = match sass.map(|image| self.load_sass(image)) {
                    Some(Ok(m)) => m,
                    _ => self.load(ptx)?,
                };
                entry.insert(Loaded { module: loaded, kernels: HashMap::new() })
            }
        };
        let entry = match loaded.kernels.get(name) {
            Some(entry) => entry.clone(),
            None => {
                let entry = self.look_up(&loaded.module, ptx, name)?;
                loaded.kernels.insert(name.to_string(), entry.clone());
                entry
            }
        };
        Ok(Kernel { entry, device: Arc::clone(&self.device) })
    }

    /// Loads a cubin (copied to 8-byte alignment, which ELF images need).
    fn load_sass(&self, image: &[u8]) -> std::result::Result<Module, driver::LoadError> {
        let mut aligned = vec![0u64; image.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..image.len()].copy_from_slice(image);
        // SAFETY: a cubin image, which the driver validates.
        unsafe { self.device.cx.load(bytemuck::cast_slice(&aligned)) }
    }

    fn load(&self, ptx: &str) -> Result<Module> {
        let image = CString::new(ptx)
            .map_err(|_| Error::invalid_argument("Gpu::kernel", "the PTX text contains a NUL byte"))?;
        // SAFETY: NUL-terminated PTX text.
        unsafe { self.device.cx.load(image.as_bytes_with_nul()) }.map_err(|e| {
            let mut message = describe(e.error);
            if !e.log.is_empty() {
                message = format!("{message}; JIT log:\n{}", e.log);
            }
            Error::backend("cuda", format!("loading a PTX module of {} bytes on {}", ptx.len(), self.name()), message)
        })
    }

    fn look_up(&self, module: &Module, ptx: &str, name: &str) -> Result<Entrypoint> {
        let context = || format!("looking up kernel `{name}`");
        let c_name = CString::new(name)
            .map_err(|_| Error::invalid_argument("Gpu::kernel", format!("kernel name {name:?} contains a NUL byte")))?;
        let function = self.device.cx.function(module, &c_name).map_err(|e| match e.0 {
            CUresult::CUDA_ERROR_NOT_FOUND => {
                Error::backend("cuda", context(), format!("the module has no kernel named `{name}` ({})", describe(e)))
            }
            _ => backend_error(context(), e),
        })?;
        // Read from the PTX text: asking the driver past the last parameter is an API error that
        // compute-sanitizer reports.
        let sizes = entry_parameters(ptx, name)
            .ok_or_else(|| Error::backend("cuda", context(), format!("the module text has no entry `{name}`")))?;
        if let Some((index, size)) = sizes.iter().enumerate().find(|&(_, &size)| size != 8) {
            return Err(Error::backend(
                "cuda",
                context(),
                format!("parameter {index} of kernel `{name}` is {size} bytes; accel kernels take 8-byte words only"),
            ));
        }
        let resident_blocks =
            self.device.cx.resident_blocks(function, BLOCK_THREADS).map_err(|e| backend_error(context(), e))?.max(1);
        let local_bytes = self.device.cx.local_bytes(function).map_err(|e| backend_error(context(), e))?;
        Ok(Entrypoint { function, name: name.into(), parameters: sizes.len(), resident_blocks, local_bytes })
    }
}

/// The sizes in bytes of the parameters of kernel `name`, from its `.entry` declaration.
fn entry_parameters(ptx: &str, name: &str) -> Option<Vec<usize>> {
    let start = ptx.find(&format!(".entry {name}("))? + ".entry (".len() + name.len();
    let list = &ptx[start..start + ptx[start..].find(')')?];
    let sizes = list
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let words: Vec<&str> = p.split_whitespace().collect();
            let ty = words.iter().find(|w| w.len() > 2 && w.starts_with('.') && w[2..].parse::<usize>().is_ok());
            let bits = ty.and_then(|t| t[2..].parse::<usize>().ok()).unwrap_or(8);
            // `.b8 name[16]`: an aggregate of that many bytes.
            let count = p.split_once('[').and_then(|(_, n)| n.trim_end_matches(']').parse::<usize>().ok()).unwrap_or(1);
            bits / 8 * count
        })
        .collect();
    Some(sizes)
}

/// Unloads every module of a device that is going away.
pub(super) fn unload_all(cx: &driver::Context, modules: &mut Modules) {
    for module in modules.drain() {
        // SAFETY: no kernel of the module is left (each holds the device alive), and the device is
        // being dropped after its stream was synchronised.
        let _ = unsafe { cx.unload(module) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sass_for_a_device_is_its_own_or_an_older_one_of_the_same_major_version() {
        static SASS: [(u32, &[u8]); 2] = [(80, b"ampere"), (90, b"hopper")];
        let module = DeviceModule { ptx: "", sass: &SASS };
        assert_eq!(module.sass_for((8, 0)), Some(&b"ampere"[..]));
        assert_eq!(module.sass_for((8, 6)), Some(&b"ampere"[..]));
        assert_eq!(module.sass_for((9, 0)), Some(&b"hopper"[..]));
        assert_eq!(module.sass_for((10, 0)), None, "a newer GPU compiles the PTX");
        assert_eq!(module.sass_for((7, 5)), None);
        assert_eq!(DeviceModule { ptx: "", sass: &[] }.sass_for((9, 0)), None);
    }
}
