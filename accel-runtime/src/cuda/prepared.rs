//! What the executor needs of a program beyond its IR, worked out once per program and device
//! rather than on every call: the program's schedule (its steps), the collective nodes and their ids (which name their kernels), each
//! node's kernel interface (its closures' free variables), whether any kernel can record an error,
//! and the kernels themselves, looked up by name on their first launch.
//!
//! A [`Gpu`] keeps one `Prepared` per program, keyed by the program's address: programs are
//! `'static` (the `#[accel]` macro's `optimised()`), so no two programs share one.

use super::value::ill_typed;
use super::{DeviceModule, Gpu, Kernel, lock};
use accel_core::Result;
use accel_core::ir::{ArrayOp, Program};
use accel_core::kernel::{self, Param, Role};
use accel_core::schedule::Schedule;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

pub(super) struct Prepared {
    /// The steps of a run ([`Schedule`]).
    pub(super) schedule: Schedule<'static>,
    /// Every collective node in pre-order ([`kernel::array_nodes`]): a node's position is its id.
    pub(super) nodes: Vec<&'static ArrayOp>,
    /// Node ids by the node's address.
    ids: HashMap<usize, usize>,
    /// The interface of each node ([`kernel::interface`]).
    layouts: Vec<Vec<Param<'static>>>,
    /// Whether any kernel can record an error ([`kernel::program_may_fail`]); if none can, a run
    /// needs no wait to read its error slot.
    pub(super) may_fail: bool,
    /// The roles of each node's kernels ([`kernel::roles`], which walks an elementwise node's
    /// closures to choose between `Generate` and `GenerateEach`): worked out once.
    roles: Vec<&'static [Role]>,
    /// The kernels of each node, by the position of their role in `roles`.
    kernels: Vec<Vec<OnceLock<Kernel>>>,
    /// The module's offsets scan ([`kernel::offsets_scan`]).
    offsets_scan: OnceLock<Kernel>,
    /// The module's range starts ([`kernel::range_starts`]).
    range_starts: OnceLock<Kernel>,
    prefix: &'static str,
    module: &'static DeviceModule,
}

impl Prepared {
    fn new(program: &'static Program, prefix: &'static str, module: &'static DeviceModule) -> Prepared {
        let typed = kernel::typed_array_nodes(program);
        let nodes: Vec<&'static ArrayOp> = typed.iter().map(|&(op, _)| op).collect();
        let roles: Vec<&'static [Role]> = nodes.iter().map(|op| kernel::roles(op)).collect();
        Prepared {
            schedule: Schedule::build(program),
            ids: nodes.iter().enumerate().map(|(id, op)| (address(op), id)).collect(),
            layouts: typed.into_iter().map(|(op, ty)| kernel::layout(op, ty)).collect(),
            may_fail: kernel::program_may_fail(program),
            kernels: roles.iter().map(|r| r.iter().map(|_| OnceLock::new()).collect()).collect(),
            roles,
            offsets_scan: Default::default(),
            range_starts: OnceLock::new(),
            nodes,
            prefix,
            module,
        }
    }

    /// The id of `op`, a node of this program.
    pub(super) fn id(&self, op: &ArrayOp) -> Result<usize> {
        self.ids
            .get(&address(op))
            .copied()
            .ok_or_else(|| ill_typed(format!("a `{}` node that is not in the program", op.name())))
    }

    /// The parameters of the kernels of node `id`, in word order.
    pub(super) fn layout(&self, id: usize) -> &[Param<'static>] {
        &self.layouts[id]
    }

    /// The roles of node `id`'s kernels, in launch order ([`kernel::roles`]).
    pub(super) fn roles(&self, id: usize) -> &'static [Role] {
        self.roles[id]
    }

    /// Kernel `role` of node `id`, looked up in the module on its first use.
    pub(super) fn kernel(&self, gpu: &Gpu, id: usize, role: Role) -> Result<&Kernel> {
        let no_kernel = || ill_typed(format!("node {id} of the program has no `{}` kernel", role.suffix()));
        let position = self.roles[id].iter().position(|r| *r == role).ok_or_else(no_kernel)?;
        self.once(gpu, &self.kernels[id][position], || kernel::kernel_name_in(self.prefix, id, role))
    }

    /// The module's offsets scan kernel, looked up on its first use.
    pub(super) fn offsets_scan(&self, gpu: &Gpu) -> Result<&Kernel> {
        self.once(gpu, &self.offsets_scan, || kernel::offsets_scan::SCAN.to_string())
    }

    /// The module's range starts kernel, looked up on its first use.
    pub(super) fn range_starts(&self, gpu: &Gpu) -> Result<&Kernel> {
        self.once(gpu, &self.range_starts, || kernel::range_starts::NAME.to_string())
    }

    /// The kernel in `cell`, looked up by its name on the first call.
    fn once<'a>(&'a self, gpu: &Gpu, cell: &'a OnceLock<Kernel>, name: impl FnOnce() -> String) -> Result<&'a Kernel> {
        if let Some(k) = cell.get() {
            return Ok(k);
        }
        let k = gpu.module_kernel(self.module, &name())?;
        Ok(cell.get_or_init(|| k))
    }
}

fn address(op: &ArrayOp) -> usize {
    op as *const ArrayOp as usize
}

/// The programs a [`Gpu`] has run, prepared.
#[derive(Default)]
pub(super) struct Programs {
    by_address: HashMap<usize, Arc<Prepared>>,
}

impl Gpu {
    /// `program` prepared for this device: made on its first run, shared by later ones.
    pub(super) fn prepared(
        &self,
        program: &'static Program,
        prefix: &'static str,
        module: &'static DeviceModule,
    ) -> Arc<Prepared> {
        let key = program as *const Program as usize;
        if let Some(p) = lock(&self.programs).by_address.get(&key) {
            return Arc::clone(p);
        }
        // Prepared outside the lock: another thread may prepare the same program meanwhile, and
        // the first one stored wins.
        let prepared = Arc::new(Prepared::new(program, prefix, module));
        Arc::clone(lock(&self.programs).by_address.entry(key).or_insert(prepared))
    }
}
