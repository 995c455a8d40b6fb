//! An element's reads at its own index, split from the rest of its code.
//!
//! The code of an element over a rank-1 index space (here, a delayed operand of a reduction)
//! often starts by reading manifest arrays at the element's index: a CSR product's `let c =
//! cols[i]; let v = vals[i]; v * x[c]`. Those reads cannot fail (the `in_bounds` pass proved
//! them, `ReadSite::Elementwise`, or flattening built them, `ReadSite::Flattened`) and wait on
//! nothing, but the rest of the code may (a checked read, a branch). A walker that runs several
//! elements a lane and calls the whole code per element leaves each element's reads behind the
//! previous element's check. Split, the walker issues the reads of all its elements first
//! (`prefetch`), then works each element out (`finish`).
//!
//! (Tried for `generate` and `permute` too, 2026-11-29: the histogram's four samples a thread
//! then came in one 16-byte load, but the kernel, bound by its instructions, was no faster.)

use super::Gen;
use crate::ir::{Expr, ExprKind, Lambda, ReadSite, Var};
use crate::types::{ElemType, Type};
use proc_macro2::TokenStream;
use quote::quote;

/// `body` over the index `index`, split: `prefetched` is what its leading reads at `index` read
/// (one read, a tuple of several, or `index` itself when there are none), and `finish` the rest
/// of `body`, which receives `prefetched` in `received` and binds each read's variable from it.
pub(super) struct Split {
    pub prefetched: Expr,
    /// The arrays the leading reads read, in the order of `prefetched`'s parts (none when
    /// `prefetched` is the index).
    pub arrays: Vec<Expr>,
    pub received: Var,
    pub finish: Expr,
}

/// A split's steps as closures ([`Split::closures`]).
pub(super) struct Closures {
    /// `|index| prefetched`.
    pub prefetch: TokenStream,
    /// The same reads made with streaming loads (`View::at_streaming`), for a walker that reads
    /// each element once.
    pub prefetch_streaming: TokenStream,
    /// `|index| [prefetched; RANGE_ITEMS]`: the streaming reads of the run of
    /// `accel_kernels::abi::RANGE_ITEMS` elements from `index` (a multiple of it), each array
    /// read as one run (`View::run_streaming`, 16 bytes a load), for a walker whose lane reads
    /// consecutive elements.
    pub prefetch_run_streaming: TokenStream,
    /// `|received, index, row| finish`.
    pub finish: TokenStream,
}

impl Split {
    /// The two steps as closures.
    pub(super) fn closures(self, cg: &Gen, index: Var, row: Var) -> syn::Result<Closures> {
        let usize_t = Type::Elem(ElemType::USIZE);
        let prefetch =
            Lambda { params: vec![(index.clone(), usize_t.clone())], body: Box::new(self.prefetched.clone()) };
        let params = vec![(self.received, self.prefetched.ty), (index, usize_t.clone()), (row, usize_t)];
        Ok(Closures {
            prefetch: cg.lambda(&prefetch)?,
            prefetch_streaming: cg.streaming().lambda(&prefetch)?,
            prefetch_run_streaming: run_streaming(cg, &self.arrays)?,
            finish: cg.lambda(&Lambda { params, body: Box::new(self.finish) })?,
        })
    }
}

/// `|index| [prefetched; RANGE_ITEMS]` of [`Closures::prefetch_run_streaming`]: the run of each
/// array of `arrays` from `index`, zipped into a run of tuples where there are several, or the
/// run of indices where there are none (as [`Split::prefetched`] is made).
fn run_streaming(cg: &Gen, arrays: &[Expr]) -> syn::Result<TokenStream> {
    let arrays = arrays.iter().map(|a| cg.reference(a)).collect::<syn::Result<Vec<_>>>()?;
    Ok(runs_streaming(&arrays))
}

/// `|__i| [..; RANGE_ITEMS]`: the runs from `__i` of the arrays `arrays` (tokens of views), zipped
/// into a run of tuples where there are several, or the run of indices where there are none.
pub(super) fn runs_streaming(arrays: &[TokenStream]) -> TokenStream {
    // SAFETY (of the generated code): the walker's run lies inside each array, where the element's
    // own reads (proved in bounds, or the operand itself) lie, and starts at a multiple of its
    // length.
    let runs: Vec<TokenStream> = arrays
        .iter()
        .map(|a| quote!(unsafe { (#a).run_streaming::<{ ::accel_kernels::abi::RANGE_ITEMS }>(__i) }))
        .collect();
    match runs.as_slice() {
        [] => quote!(|__i: usize| ::core::array::from_fn(|__j| __i + __j)),
        [one] => quote!(|__i: usize| #one),
        _ => {
            let parts = (0..runs.len()).map(syn::Index::from);
            quote!(|__i: usize| {
                let __runs = (#(#runs,)*);
                ::core::array::from_fn(|__j| (#(__runs.#parts[__j],)*))
            })
        }
    }
}

/// Splits `body`, whose index is `index`, at the end of its leading `let`s of own reads
/// ([`own_read`]); `received` must be a variable that `body` does not use.
pub(super) fn split(body: &Expr, index: &Var, received: Var) -> Split {
    let mut reads: Vec<(Var, Expr)> = Vec::new();
    let mut arrays = Vec::new();
    let mut rest = body;
    while let ExprKind::Let { var, value, body } = &rest.kind
        && let Some(array) = own_read(value, index)
    {
        reads.push((var.clone(), (**value).clone()));
        arrays.push(array.clone());
        rest = body;
    }
    let (prefetched, slots) = match reads.as_slice() {
        [] => (Expr::var(index.clone(), Type::Elem(ElemType::USIZE)), Vec::new()),
        [(v, x)] => (x.clone(), vec![(v.clone(), None)]),
        _ => {
            let elems = reads.iter().map(|(_, x)| x.ty.as_elem().expect("a scalar read").clone()).collect();
            let tuple = Expr::new(
                ExprKind::Tuple(reads.iter().map(|(_, x)| x.clone()).collect()),
                Type::Elem(ElemType::Tuple(elems)),
            );
            (tuple, reads.iter().enumerate().map(|(k, (v, _))| (v.clone(), Some(k))).collect())
        }
    };
    let given = Expr::var(received.clone(), prefetched.ty.clone());
    let mut finish = rest.clone();
    for (v, slot) in slots.into_iter().rev() {
        let value = match slot {
            None => given.clone(),
            Some(k) => Expr::new(ExprKind::Proj(Box::new(given.clone()), k), reads[k].1.ty.clone()),
        };
        finish = Expr::new(ExprKind::Let { var: v, value: Box::new(value), body: Box::new(finish) }, rest.ty.clone());
    }
    Split { prefetched, arrays, received, finish }
}

/// The array `e` reads if it reads a manifest array at exactly `index`, unchecked (a read that
/// fusion or flattening proved in bounds).
fn own_read<'e>(e: &'e Expr, index: &Var) -> Option<&'e Expr> {
    match &e.kind {
        ExprKind::Index { array, index: i, site: ReadSite::Elementwise | ReadSite::Flattened }
            if matches!(array.kind, ExprKind::Var(_)) && matches!(&i.kind, ExprKind::Var(v) if v.id == index.id) =>
        {
            Some(array)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ArrayOp;
    use crate::kernel::{array_nodes, tests::program};

    /// The closure of the program's one `generate`, after the `in_bounds` pass.
    fn closure(src: &str) -> crate::ir::Lambda {
        let p = crate::in_bounds::run(program(src));
        match array_nodes(&p)[0] {
            ArrayOp::Generate { f, .. } => f.clone(),
            op => panic!("`{}` is not a generate", op.name()),
        }
    }

    fn lets(mut e: &Expr) -> Vec<(String, &Expr)> {
        let mut out = Vec::new();
        while let ExprKind::Let { var, value, body } = &e.kind {
            out.push((var.name.clone(), &**value));
            e = body;
        }
        out
    }

    #[test]
    fn the_leading_reads_at_the_own_index_are_split_off_up_to_the_first_other_binding() {
        // `xs[i]` is proved in bounds, `ys[i]` is not (`ys` may be shorter); the reads end at
        // the first binding that is not one, and what follows stays in `finish`.
        let f = closure(
            "fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
                 generate(xs.len(), |i| {
                     let x = xs[i]; let v = xs[i]; let z = x * 2.0; let w = xs[i]; let y = ys[i];
                     if x > v { y } else { w + z }
                 })
             }",
        );
        let received = Var { id: crate::ir::visit::max_var_id_of_lambda(&f) + 1, name: "prefetched".into() };
        let split = split(&f.body, &f.params[0].0, received.clone());
        let ExprKind::Tuple(reads) = &split.prefetched.kind else { panic!("two reads: {:?}", split.prefetched.kind) };
        assert_eq!(reads.len(), 2);
        assert!(reads.iter().all(|r| own_read(r, &f.params[0].0).is_some()));
        let bound = lets(&split.finish);
        let names: Vec<_> = bound.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["x", "v", "z", "w", "y"]);
        for (k, (_, value)) in bound[..2].iter().enumerate() {
            assert!(
                matches!(&value.kind, ExprKind::Proj(p, j)
                    if *j == k && matches!(&p.kind, ExprKind::Var(v) if *v == received)),
                "read {k} is taken from what was prefetched"
            );
        }
        assert!(own_read(bound[3].1, &f.params[0].0).is_some(), "a read after the split stays where it is");
        assert!(matches!(&bound[4].1.kind, ExprKind::Index { site, .. } if site.is_checked()));
        assert_eq!(split.finish.ty, f.body.ty);
    }

    #[test]
    fn one_read_is_passed_as_it_is_and_none_passes_the_index() {
        let f = closure("fn f(xs: Vector<f32>) -> Vector<f32> { generate(xs.len(), |i| { let x = xs[i]; x * 2.0 }) }");
        let index = &f.params[0].0;
        let received = Var { id: crate::ir::visit::max_var_id_of_lambda(&f) + 1, name: "prefetched".into() };
        let one = split(&f.body, index, received.clone());
        assert!(own_read(&one.prefetched, index).is_some());
        assert!(matches!(&lets(&one.finish)[0].1.kind, ExprKind::Var(v) if *v == received));

        let g = closure("fn f(xs: Vector<f32>) -> Vector<f32> { generate(xs.len(), |i| xs[i + 1 - 1]) }");
        let none = split(&g.body, &g.params[0].0, received);
        assert!(matches!(&none.prefetched.kind, ExprKind::Var(v) if *v == g.params[0].0));
        assert_eq!(none.finish, *g.body);
    }
}
