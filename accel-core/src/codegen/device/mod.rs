//! Code generation for the GPU: the `lib.rs` of a `no_std` crate that instantiates the
//! `accel-kernels` skeletons with each program's closures, built for `nvptx64-nvidia-cuda` by
//! `accel-build` into one PTX module per source file (`crate::ptx_dir`).
//!
//! Each launched collective node ([`kernel::launched`]) gets the kernels [`kernel::roles`] lists,
//! named by [`kernel::kernel_name`]; their parameters are `u64` words laid out as [`kernel::layout`]
//! lists, and the CUDA executor of `accel-runtime` passes exactly those words (an array column's
//! word is declared as a pointer of its scalar type, the same 64 bits, so that NVPTX reads it as
//! global memory, aligned as `accel_kernels::abi::COLUMN_ALIGN` says). All kernels of
//! a node share one prologue that turns words into views; the scalar code of closures is the CPU
//! backend's (the same `Gen`), so both backends compute the same elements.
//!
//! The fused forms of [`crate::fusion`]: a delayed operand becomes an `accel_kernels::Delayed`
//! (its shape from the words, the generate's closure over the captures) that kernels read like a
//! view, so no skeleton changes; delayed reads in closures are the scalar generator's; an epilogue
//! node emits its reduction's or scan's kernels with every result write passed through the
//! epilogue's closure.
//!
//! One module per skeleton, mirroring `accel-kernels`: `generate` (every elementwise operation and
//! the stencil), `reduce`, `scan` (and the module-wide offsets scan), `permute` and `expand`
//! (expand, filter, segments from lengths) each write the kernel bodies of their operations;
//! `layout` turns a node's words into the views those bodies read, by walking its
//! [`kernel::layout`].

mod expand;
mod generate;
mod layout;
mod own_reads;
mod permute;
mod reduce;
mod scan;

use super::{Gen, elem_type, ix_from_array, var_ident};
use crate::ir::{ArrayOp, Direction, Lambda, Producer, Program};
use crate::kernel::{self, Form, Role, Rows};
use crate::types::Type;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// The `lib.rs` of the device crate holding the kernels of `programs` (each fingerprint once).
pub fn module_source(programs: &[Program]) -> syn::Result<String> {
    let mut items = vec![header(), scan::offsets_scan(), reduce::range_starts()];
    let mut seen = std::collections::HashSet::new();
    for p in programs {
        // The prefix hashes the whole program: computed once, not per kernel.
        let prefix = p.kernel_prefix();
        if !seen.insert(prefix.clone()) {
            continue;
        }
        let launched = kernel::launched(p);
        for (id, (op, ty)) in kernel::typed_array_nodes(p).into_iter().enumerate() {
            if launched[id] && !kernel::roles(op).is_empty() {
                items.push(node_kernels(p, &prefix, id, op, ty)?);
            }
        }
    }
    Ok(items.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("\n\n"))
}

fn header() -> TokenStream {
    quote! {
        #![no_std]
        #![feature(abi_ptx)]
        #![allow(unused, non_snake_case, unused_parens, unused_braces, clippy::all)]

        use ::accel_kernels::prelude::*;
        use ::accel_kernels::{abi, atomic, expand, generate, ranges, reduce, scan, stencil};

        /// Index arithmetic of the generated kernels.
        use ::accel_kernels::index as __rt;
    }
}

pub(super) fn unsupported(what: &str) -> syn::Error {
    syn::Error::new(Span::call_site(), format!("{what} cannot be used on the GPU yet"))
}

fn node_kernels(program: &Program, prefix: &str, id: usize, op: &ArrayOp, ty: &Type) -> syn::Result<TokenStream> {
    let cg = Gen::for_device(program);
    let (words, outs) = layout::prologue(&cg, op, ty)?;
    let params = words.params();
    let binds = &words.binds;
    // An epilogue runs the kernels of its reduction or scan, whose errors name that node.
    let (computed, epilogue, error_id) = match (kernel::epilogue_source(op), op) {
        (Some(inner), ArrayOp::Producer(Producer::IMap { f, .. })) => {
            let inner_id = kernel::array_nodes(program).iter().position(|n| std::ptr::eq(*n, inner));
            (inner, Some(f), inner_id.expect("the reduction is a node of the program"))
        }
        _ => (op, None, id),
    };
    let results = Results::new(&cg, &outs[0], epilogue, ty, kernel::mirrors_result(computed, ty))?;
    let mut kernels = Vec::new();
    // A kernel that defers its failures keeps a thread's first one in registers until its end
    // (`Ctx::flush`; `kernel::defers_failures`).
    let flush = words.error_slot.then(|| quote!(__cx.flush();));
    for (role, body) in bodies(&cg, computed, ty, &outs, &results, error_id)? {
        let name = format_ident!("{}", kernel::kernel_name_in(prefix, id, role));
        let defer = kernel::defers_failures(op, role);
        kernels.push(quote! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn #name(#params) {
                const __DEFER: bool = #defer;
                #(#binds)*
                unsafe { #body };
                #flush
            }
        });
    }
    Ok(quote!(#(#kernels)*))
}

/// Binds a lambda's index parameter to `__ix` (a `[usize; rank]`) and returns its body.
pub(super) fn index_body(cg: &Gen, f: &Lambda, rank: usize) -> syn::Result<TokenStream> {
    let p = var_ident(&f.params[0].0);
    let conv = ix_from_array(rank, &quote!(__ix));
    let body = cg.scalar(&f.body)?;
    Ok(quote!({ let #p = #conv; #body }))
}

/// How a reduction or scan writes its results into `out`: as they are, or through an epilogue
/// (fused form 3 of [`crate::fusion`]) that maps `(index, value)` to the element written; and, for
/// a result with a host mirror ([`kernel::mirrors_result`]), into the mirror too.
pub(super) struct Results<'a> {
    out: &'a Ident,
    /// The epilogue's closure and the rank of the results.
    epilogue: Option<(TokenStream, usize)>,
    /// The element type of a result mirrored at `__mirror` (null when the host gave no mirror).
    mirror: Option<TokenStream>,
}

impl<'a> Results<'a> {
    fn new(cg: &Gen, out: &'a Ident, epilogue: Option<&Lambda>, ty: &Type, mirrored: bool) -> syn::Result<Results<'a>> {
        let rank = ty.as_array().map_or(0, |(_, r)| r);
        let mirror = ty.as_array().filter(|_| mirrored).map(|(elem, _)| elem_type(elem));
        Ok(Results { out, epilogue: epilogue.map(|f| cg.lambda(f).map(|l| (l, rank))).transpose()?, mirror })
    }

    /// The binding of the epilogue's closure, for the kernels that write results.
    pub(super) fn setup(&self) -> TokenStream {
        match &self.epilogue {
            Some((f, _)) => quote!(let __epi = #f;),
            None => quote!(),
        }
    }

    /// Writes result `v` at row-major position `at` of the output (and of its mirror).
    pub(super) fn write(&self, at: TokenStream, v: TokenStream) -> TokenStream {
        let out = self.out;
        let value = match &self.epilogue {
            None => v,
            Some((_, rank)) => {
                let ix = ix_from_array(*rank, &quote!(__ix));
                quote!({
                    let __ix: [usize; #rank] = __rt::unravel(__at, #out.shape);
                    __epi(#ix, #v)
                })
            }
        };
        let mirror = match &self.mirror {
            Some(t) => quote!(if !__mirror.is_null() { *(__mirror as *mut #t).add(__at) = __w; }),
            None => quote!(),
        };
        quote!({
            let __at = #at;
            let __w = #value;
            #out.set_linear(__at, __w);
            #mirror
        })
    }
}

/// One kernel body per role of the node (`op` is the reduction or scan of an epilogue, whose
/// writes `results` rewrites; `id` is the node errors name), from the module of its skeleton.
fn bodies(
    cg: &Gen,
    op: &ArrayOp,
    ty: &Type,
    outs: &[Ident],
    results: &Results,
    id: usize,
) -> syn::Result<Vec<(Role, TokenStream)>> {
    let out = &outs[0];
    let id = id as u64;
    match kernel::form(op) {
        Form::Elementwise => {
            let role = kernel::elementwise_role(op);
            Ok(vec![(role, generate::body(cg, op, ty, out, role)?)])
        }
        Form::Reduce { a, rows, seeded, f } => {
            let walks_ranges = kernel::walks_ranges(a, rows);
            let rows = match rows {
                Rows::Innermost => reduce::innermost_rows(a, out),
                Rows::All => reduce::one_row(),
                Rows::Segments => reduce::segmented_rows(a),
            };
            let load = reduce::load(cg, op)?;
            reduce::kernels(cg, seeded, f, rows, load, walks_ranges, results, id)
        }
        Form::Scan { a, segmented, dir, kind, seeded, f } => {
            let rows = if segmented { reduce::segmented_rows(a) } else { scan::innermost_rows(a) };
            scan::kernels(cg, kind, dir == Direction::Right, seeded, f, rows, outs, results, segmented)
        }
        Form::Permute { defaults, f, combine, a } => permute::kernels(cg, defaults, f, combine, a, out),
        Form::ExpandPermute { .. } => permute::expand_permute(cg, op, out),
        Form::Expand { count, value } => expand::expand(cg, count, value, out),
        Form::Filter { pred } => expand::filter(cg, pred, out),
        Form::SegmentsFromLengths(l) => Ok(expand::segments_from_lengths(l)),
        // Producers (lowered to a `generate` by the pipeline, or an epilogue, which runs its
        // reduction's or scan's kernels) and host operations: no kernels (`kernel::roles`).
        Form::Producer | Form::Host => Ok(vec![]),
    }
}

/// The error for an operation that reached the module of another skeleton (a bug of the
/// dispatch in [`bodies`]), or that has no GPU form yet.
fn not_here(op: &ArrayOp, skeleton: &str) -> syn::Error {
    syn::Error::new(Span::call_site(), format!("`{}` is not a {skeleton} operation", op.name()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::rank_of;
    use crate::ir::Expr;
    use crate::kernel::Scratch;
    use crate::kernel::tests::{inline_generates, program};

    #[test]
    fn every_kernel_of_every_node_is_emitted_once_and_parses() {
        let p = program(
            "fn f(xs: Vector<f32>, ls: Vector<i32>) -> (Vector<f32>, Vector<f32>, Scalar<f32>) {
                 let ys = xs.map(|x| x * 2.0);
                 let s = ys.scanl1(|a, b| a + b);
                 let t = xs.fold_seg(0.0, |a, b| a.max(b), ls);
                 (s, t, ys.filter(|y| y > 1.0).sum())
             }",
        );
        let src = module_source(&[p.clone(), p.clone()]).unwrap();
        syn::parse_file(&src).expect("the module is valid Rust");
        let nodes = kernel::array_nodes(&p);
        let mut names = 0;
        for (id, op) in nodes.iter().enumerate() {
            for role in kernel::roles(op) {
                let name = kernel::kernel_name(&p, id, *role);
                assert_eq!(src.matches(&format!("fn {name} (")).count(), 1, "{name}");
                names += 1;
            }
        }
        assert!(names >= 8, "map, scan (3), fold_seg (2), filter (2), sum (2), segments (1)");
        assert_eq!(src.matches(&format!("fn {} (", kernel::offsets_scan::SCAN)).count(), 1);
        assert_eq!(src.matches(&format!("fn {} (", kernel::range_starts::NAME)).count(), 1);
    }

    /// `kernel::may_fail` against the generated code of each launched node: the kernels of a node
    /// that may not fail have no failing path. Float division goes through `__cx.div` too, which
    /// cannot fail for floats, so it is not counted.
    #[test]
    fn nodes_that_may_fail_are_those_whose_kernels_have_a_failing_path() {
        let failing = ["__cx.fail(", "__cx.read(", "__cx.read_at(", "__cx.check_index(", "__cx.rem("];
        let cases = [
            ("fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.zip_with(ys, |x, y| 2.5 * x + y) }", false),
            ("fn f(xs: Vector<f32>) -> Scalar<f32> { xs.fold_all(0.0, |a, b| a + b) }", false),
            ("fn f(xs: Vector<f64>) -> Vector<f64> { xs.map(|x| x / 3.0).scanl1(|a, b| a + b) }", false),
            // Fused movements read their source at a computed index, checked.
            ("fn f(xs: Matrix<i32>) -> Matrix<i32> { xs.transpose().reverse() }", true),
            // The host checks a slice's row before the launch.
            ("fn f(xs: Matrix<f32>) -> Vector<f32> { xs.map(|x| x + 1.0).slice_row(3) }", false),
            ("fn f(xs: Vector<u32>) -> Vector<u32> { xs.filter(|x| x % 2 == 0) }", true),
            ("fn f(xs: Vector<i64>, d: i64) -> Vector<i64> { xs.map(|x| x / d) }", true),
            ("fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.map(|x| x + ys[3]) }", true),
            ("fn f(xs: Vector<f32>) -> Scalar<f32> { xs.fold1_all(|a, b| a.max(b)) }", true),
            ("fn f(xs: Matrix<f32>) -> Vector<f32> { xs.fold(0.0, |a, b| a + b) }", false),
            ("fn f(xs: Vector<f32>, ls: Vector<i32>) -> Vector<f32> { xs.fold1_seg(|a, b| a + b, ls) }", true),
            ("fn f(xs: Vector<f32>) -> Vector<f32> { xs.backpermute(xs.len() / 2, |i| i * 2) }", true),
            ("fn f(xs: Vector<f32>) -> Vector<f32> { xs.permute(fill(8, 0.0f32), |i| i, |a, b| a + b) }", true),
            ("fn f(ls: Vector<u32>) -> Vector<usize> { ls.expand(|l| l, |x, j| j) }", false),
            ("fn f(ls: Vector<i32>) -> Vector<usize> { ls.expand(|l| l, |x, j| j) }", true),
            ("fn f(xs: Vector<f32>, ls: Vector<u64>) -> Vector<f32> { xs.fold_seg(0.0, |a, b| a + b, ls) }", false),
            ("fn f(xs: Vector<f32>, ls: Vector<i64>) -> Vector<f32> { xs.fold_seg(0.0, |a, b| a + b, ls) }", true),
            (
                "fn f(xs: Vector<f32>) -> Vector<f32> {
                     let g = generate(xs.len(), |i| xs[i + 1] * 2.0);
                     g.map(|y| y + 1.0)
                 }",
                true,
            ),
            // A read at the closure's own index of the array it spans cannot fail (`in_bounds`).
            (
                "fn f(xs: Vector<f32>) -> Vector<f32> {
                     let g = generate(xs.len(), |i| xs[i] * 2.0);
                     g.map(|y| y + 1.0)
                 }",
                false,
            ),
        ];
        for (src, fails) in cases {
            let p = crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
            let prefix = p.kernel_prefix();
            let launched = kernel::launched(&p);
            let mut any = false;
            for (id, (op, ty)) in kernel::typed_array_nodes(&p).into_iter().enumerate() {
                if !launched[id] || kernel::roles(op).is_empty() {
                    continue;
                }
                let code: String =
                    node_kernels(&p, &prefix, id, op, ty).unwrap().to_string().split_whitespace().collect();
                let (failing_path, division) = (failing.iter().any(|f| code.contains(f)), code.contains("__cx.div("));
                let what = format!("node {id} ({}) of {src}", op.name());
                if kernel::may_fail(op) {
                    assert!(failing_path || division, "{what} may fail but its kernels have no failing path");
                } else {
                    assert!(!failing_path, "{what} may not fail but its kernels have a failing path:\n{code}");
                }
                any |= kernel::may_fail(op);
            }
            assert_eq!(kernel::program_may_fail(&p), fails, "{src}");
            assert_eq!(any, fails, "{src}");
        }
    }

    /// Which kernels keep their threads' first failure to their end (`kernel::defers_failures`),
    /// and that each kernel's code says so.
    #[test]
    fn kernels_defer_their_failures_unless_batched_and_loop_free() {
        use Role::*;
        let walks = vec![
            (Reduce, true),
            (Finish, true),
            (RangeReduce, false),
            (RangeReduceDense, false),
            (WideReduce, false),
            (RangeFinish, true),
        ];
        let looping_walks = walks.iter().map(|&(role, _)| (role, true)).collect();
        let cases: [(&str, Vec<(Role, bool)>); 5] = [
            (
                "fn f(cs: Vector<u32>, x: Vector<f32>, ls: Vector<u64>) -> Vector<f32> {
                     cs.map(|c| x[c as usize]).fold_seg(0.0, |a, b| a + b, ls)
                 }",
                walks,
            ),
            (
                "fn f(xs: Vector<u32>, x: Vector<f32>) -> Vector<f32> { xs.map(|c| x[c as usize] * 2.0) }",
                vec![(Generate, true)],
            ),
            (
                "fn f(xs: Vector<u32>, w: Vector<f32>) -> Vector<f32> {
                     xs.map(|x| w[x as usize]).permute(fill(8, 0.0f32), |i| i % 8, |a, b| a + b)
                 }",
                vec![(Defaults, true), (Scatter, false)],
            ),
            (
                "fn f(cs: Vector<u32>, x: Vector<f32>, ls: Vector<u64>) -> Vector<f32> {
                     cs.map(|c| iterate(3, 0.0f32, |s| s + x[c as usize])).fold_seg(0.0, |a, b| a + b, ls)
                 }",
                looping_walks,
            ),
            (
                "fn f(xs: Vector<usize>) -> Vector<usize> {
                     xs.map(|x| while_loop(x, |v| v > 0 && xs[v % 7] > 1, |v| v / 2))
                 }",
                vec![(GenerateEach, true)],
            ),
        ];
        for (src, expected) in cases {
            let p = crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
            let prefix = p.kernel_prefix();
            let roles: Vec<Role> = expected.iter().map(|&(role, _)| role).collect();
            let (id, (op, ty)) = kernel::typed_array_nodes(&p)
                .into_iter()
                .enumerate()
                .find(|(_, (op, _))| kernel::roles(op) == roles.as_slice())
                .expect("the node of the expected kernels");
            assert!(kernel::may_fail(op), "{src}");
            let code: String = node_kernels(&p, &prefix, id, op, ty).unwrap().to_string().split_whitespace().collect();
            for (role, defers) in expected {
                assert_eq!(kernel::defers_failures(op, role), defers, "{role:?} of {src}");
                let name = kernel::kernel_name_in(&prefix, id, role);
                let kernel = code.split(&format!("fn{name}(")).nth(1).expect("the role's kernel");
                let stated = kernel.split("const__DEFER:bool=").nth(1).expect("a stated choice");
                assert!(stated.starts_with(&format!("{defers};")), "{role:?} of {src}:\n{kernel}");
            }
        }
    }

    #[test]
    fn captured_variables_become_parameters() {
        let p = program("fn g(a: f32, xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.map(|x| a * x + ys[0]) }");
        let p = crate::pipeline::optimise(&p, crate::pipeline::Options::default());
        let map = kernel::array_nodes(&p)[0];
        let names: Vec<String> = kernel::interface(map).captures.iter().map(|(v, _)| v.name.clone()).collect();
        assert_eq!(names, ["a", "xs", "ys"]);
        // The error slot, the output (1 dimension, 1 column), `a` (1), `xs` (2) and `ys` (2);
        // columns are pointers (global memory to NVPTX), every other word a `u64`.
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        let name = kernel::kernel_name(&p, 0, Role::Generate);
        assert!(
            src.contains(&format!(
                "fn {name} (w0 : u64 , w1 : u64 , w2 : * mut f32 , w3 : u64 , w4 : u64 , w5 : * mut f32 , w6 : u64 , \
                 w7 : * mut f32)"
            )),
            "{src}"
        );
    }

    /// Float-to-integer casts of 32 and 64 bits go through `ops::ToInt` on both backends (one
    /// `cvt.rzi` on the device, the usual range first on an x86-64 host, not LLVM's lowering of
    /// `as`); narrower ones and the rest stay `as`.
    #[test]
    fn wide_float_to_integer_casts_take_to_int_on_both_backends() {
        let p = program(
            "fn g(xs: Vector<f32>, ys: Vector<f64>) -> Vector<(u64, i32, usize, u8, f64, i64)> {
                 xs.zip_with(ys, |x, y| (x as u64, y as i32, x as usize, x as u8, x as f64, (x as i32) as i64))
             }",
        );
        let p = crate::pipeline::optimise(&p, crate::pipeline::Options::default());
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        for ty in ["u64", "i32", "usize"] {
            assert!(src.contains(&format!("ToInt :: < {ty} > :: to_int")), "{ty}: {src}");
        }
        for kept in ["as u8", "as f64", "as i64"] {
            assert!(src.contains(kept), "{kept}: {src}");
        }
        assert_eq!(src.matches("ToInt").count(), 4, "x as i32 too: {src}");
        let cpu = crate::codegen::cpu_function(&p).unwrap().to_string();
        assert_eq!(cpu.matches("ToInt").count(), 4, "{cpu}");
        assert!(cpu.contains("as u8") && !cpu.contains("as u64"), "{cpu}");
    }

    /// The words a node's kernels take, counted from the interface as the executor passes them.
    fn expected_words(program: &Program, id: usize, op: &ArrayOp) -> usize {
        let iface = kernel::interface(op);
        let leaves = kernel::reduced_elem(kernel::epilogue_source(op).unwrap_or(op)).map_or(0, |e| e.leaves().len());
        let scratch = match iface.scratch {
            Scratch::None => 0,
            Scratch::Reduce => 7 + leaves,
            Scratch::Scan => 5 + 2 * leaves,
            Scratch::Permute => 1,
            Scratch::Offsets => 3,
            Scratch::Spread => 6,
        };
        let operand = |e: &&Expr| if kernel::as_generate(e).is_some() { rank_of(e) } else { kernel::word_count(&e.ty) };
        1 + kernel::word_count(kernel::typed_array_nodes(program)[id].1)
            + scratch
            + iface.host_scalars.iter().map(|e| kernel::word_count(&e.ty)).sum::<usize>()
            + iface.operands.iter().map(operand).sum::<usize>()
            + iface.captures.iter().map(|(_, t)| kernel::word_count(t)).sum::<usize>()
    }

    /// The number of parameters of kernel `name` in `src`.
    fn params_of(src: &str, name: &str) -> usize {
        let start = src.find(&format!("fn {name} (")).unwrap_or_else(|| panic!("{name} is emitted"));
        let params = &src[start..start + src[start..].find(')').unwrap()];
        params.matches(" : ").count()
    }

    #[test]
    fn fused_forms_emit_kernels_only_for_launched_nodes_with_the_interfaces_words() {
        let p = inline_generates(&program(
            "fn f(xs: Vector<f32>, m: Matrix<i32>, ls: Vector<i32>, k: f32) -> (Vector<f32>, Vector<f64>, Matrix<i32>, Vector<i32>, Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>, Scalar<f64>, Vector<bool>, Matrix<(i32, usize)>) {
                 let n = xs.len();
                 let g = generate(n, |i| xs[i] * k);
                 let gm = generate(m.shape(), |(i, j)| m[(i, j)] + (i as i32));
                 let s = g.scanl(0.0, |a, b| a + b).imap(|i, v| v + (i as f32));
                 let t = g.fold_seg(0.0, |a, b| a.max(b), ls).imap(|i, v| (v as f64) * 2.0);
                 let u = gm.scanr1(|a, b| a - b);
                 let w = gm.fold(0, |a, b| a + b).imap(|i, v| v / ((i as i32) + 1));
                 let q = g.scanl1_seg(|a, b| a + b, ls);
                 let h = g.permute(generate(n, |i| (i as f32) - k), |i| Some((n - 1 - i,)), |a, b| a + b);
                 let st = g.stencil3(Clamp, |l, c, r| l + c + r);
                 let e = g.filter(|x| x > 1.0);
                 let all = g.fold_all(0.0, |a, b| a + b).imap(|_, v| (v as f64) + g[0] as f64);
                 let x = g.expand(|x| 2, |x, k| x > (k as f32));
                 let sm = gm.stencil3x3(Constant(7), |n| n[0][0] - n[2][2]).scanl_seg(1, |a, b| a * b, ls).imap(|(i, j), v| (v, i + j));
                 (s, t, u, w, q, h, st, e, all, x, sm)
             }",
        ));
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        syn::parse_file(&src).expect("the module is valid Rust");
        let nodes = kernel::array_nodes(&p);
        let launched = kernel::launched(&p);
        assert!(launched.iter().filter(|l| !**l).count() >= 15, "the generates and the reductions under epilogues");
        for (id, op) in nodes.iter().enumerate() {
            let prefix = format!("fn {}_n{id}_", p.kernel_prefix().trim_start_matches("r#"));
            if !launched[id] {
                assert!(!src.contains(&prefix), "node {id} ({}) is absorbed but has kernels", op.name());
                continue;
            }
            let ty = kernel::typed_array_nodes(&p)[id].1;
            let layout_words: usize = kernel::layout(op, ty).iter().map(kernel::Param::words).sum();
            assert_eq!(layout_words, expected_words(&p, id, op), "the layout of node {id} ({})", op.name());
            for role in kernel::roles(op) {
                let name = kernel::kernel_name(&p, id, *role);
                assert_eq!(params_of(&src, &name), expected_words(&p, id, op), "{name} ({})", op.name());
            }
        }
        let generates = nodes.iter().zip(&launched).filter(|(op, _)| matches!(op, ArrayOp::Generate { .. }));
        assert!(generates.clone().count() >= 10 && generates.clone().all(|(_, l)| !l), "every generate is delayed");
        assert_eq!(src.matches("_defaults (").count(), 1, "permute's delayed defaults have a kernel");
        assert!(src.contains("Delayed { shape"), "{src}");
        assert!(src.contains("__epi ("), "{src}");
        assert!(src.contains("check_index"), "`g[0]` is a delayed read");
    }

    #[test]
    fn a_fused_expand_and_permute_has_counts_and_spread_kernels_with_the_interfaces_words() {
        for (src, roles) in [
            (
                "fn sieve(ps: Vector<usize>, n: usize) -> Vector<u32> {
                     let ms = ps.expand(|p| if p > 1 { n / p - 1 } else { 0 }, |p, j| (j + 2) * p);
                     ms.map(|_| 1u32).permute(fill(n + 1, 0u32), |i| Some(ms[i]), |a, b| a + b)
                 }",
                &[Role::Defaults, Role::Counts, Role::Spread][..],
            ),
            (
                "fn f(xs: Vector<i32>, d: Vector<(i32, f32)>) -> Vector<(i32, f32)> {
                     xs.expand(|x| x % 9, |x, j| (x, j as f32)).permute(d, |i| Some(i % 7), |a, b| (a.0 + b.0, a.1 * b.1))
                 }",
                &[Role::Counts, Role::Spread][..],
            ),
        ] {
            let p = crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
            let module = module_source(std::slice::from_ref(&p)).unwrap();
            syn::parse_file(&module).expect("the module is valid Rust");
            let nodes = kernel::array_nodes(&p);
            let id = nodes.iter().position(|op| matches!(op, ArrayOp::ExpandPermute { .. })).expect("a fused pair");
            assert_eq!(kernel::roles(nodes[id]), roles);
            for role in roles {
                let name = kernel::kernel_name(&p, id, *role);
                assert_eq!(params_of(&module, &name), expected_words(&p, id, nodes[id]), "{name}");
            }
            assert!(module.contains("expand :: spread (__strategy"), "{module}");
            assert!(kernel::may_fail(nodes[id]), "a destination may be out of range");
            assert!(nodes.iter().all(|op| !matches!(op, ArrayOp::Expand { .. })), "no expanded array");
        }
    }

    #[test]
    fn a_dot_product_over_a_delayed_zip_reads_no_array_of_products() {
        let p = program(
            "fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { generate(xs.len(), |i| xs[i] * ys[i]).sum() }",
        );
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        let reduce = kernel::kernel_name(&p, 0, Role::Reduce);
        // The error slot; the result (1 column); parts, partials (1 dimension, 1 column), their
        // flags, the tickets, the mirror, the range starts and width; the seed; the delayed operand's
        // one dimension; `xs` and `ys` (2 each).
        assert_eq!(params_of(&src, &reduce), 16);
        assert_eq!(src.matches("_n1_").count(), 0, "the generate has no kernel");
        assert!(src.contains("let __a0 = Delayed { shape : [w11 as usize]"), "{src}");
        // A rank-0 result of one scalar is written into the host mirror as well.
        assert!(src.contains("if ! __mirror . is_null ()"), "{src}");
    }

    #[test]
    fn a_segmented_fold_gives_its_row_to_the_values_that_look_it_up() {
        let p = crate::pipeline::optimise(
            &program(
                "fn row_variances(rows: Nested<f32>) -> Vector<f32> {
                     rows.map(|row| {
                         let mean = row.sum().get() / (row.len() as f32).max(1.0);
                         row.map(|x| (x - mean) * (x - mean)).sum()
                     })
                 }",
            ),
            crate::pipeline::Options::default(),
        );
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        // The sums read the values as they are; the squares get their row (and so their row's
        // mean) from the walker, with no search of the offsets.
        let walks: Vec<&str> = src
            .split("reduce_rows_striped (__rows , ")
            .skip(1)
            .map(|w| &w[..w.find("__f , __meet").unwrap()])
            .collect();
        assert_eq!(walks.len(), 2, "{src}");
        assert!(walks[0].contains("__a0 . get_linear (__i)"), "{}", walks[0]);
        assert!(walks[1].contains(": usize , row_") && !walks[1].contains("segment_of"), "{}", walks[1]);
    }

    /// The device module of the program `src`, optimised as the build optimises it.
    fn optimised_module(src: &str) -> String {
        let p = crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
        module_source(std::slice::from_ref(&p)).unwrap()
    }

    /// The first kernel of `module` whose name ends in `suffix` (its node's number is the
    /// optimiser's), from its name to the next kernel.
    fn kernel_ending<'m>(module: &'m str, suffix: &str) -> &'m str {
        let mut found = module
            .split("pub unsafe extern \"ptx-kernel\" fn ")
            .filter(|k| k.split_whitespace().next().is_some_and(|name| name.ends_with(suffix)));
        found.next().unwrap_or_else(|| panic!("no kernel `*{suffix}`: {module}"))
    }

    #[test]
    fn the_ranges_walk_streams_its_values_and_the_other_walks_do_not() {
        let src = optimised_module(
            "fn spmv(rows: Nested<(u32, f32)>, x: Vector<f32>) -> Vector<f32> {
                 rows.map(|row| row.map(|(c, v)| v * x[c as usize]).sum())
             }",
        );
        let kernel_of = |suffix: &str| kernel_ending(&src, suffix);
        // The walk by ranges reads each value once, as a stream: a value alone (a lane's short
        // run), or a lane's whole run of the entries' one array (both columns) at once; the
        // values' reads elsewhere, and the gathers of `x` everywhere, are plain loads.
        let ranges = kernel_of("_range_reduce");
        assert!(ranges.contains("prefetch : | i_") && ranges.contains(". at_streaming (["), "{ranges}");
        assert_eq!(ranges.matches("at_streaming").count(), 1, "only the values: {ranges}");
        let run = "prefetch_run : | __i : usize | unsafe {";
        assert!(
            ranges.contains(run)
                && ranges.contains(". run_streaming :: < { :: accel_kernels :: abi :: RANGE_ITEMS } > (__i)"),
            "{ranges}"
        );
        assert_eq!(ranges.matches("run_streaming").count(), 1, "only the values: {ranges}");
        // (The first kernel ending in `_reduce` is the rows walk's: a node's kernels come in the
        // order of `kernel::roles`.)
        for suffix in ["_reduce", "_wide_reduce"] {
            let walk = kernel_of(suffix);
            assert!(
                walk.contains("__prefetch") && !walk.contains("at_streaming") && !walk.contains("run_streaming"),
                "{walk}"
            );
        }
    }

    #[test]
    fn the_ranges_walk_reads_runs_of_several_arrays_zipped_and_of_a_manifest_operand_whole() {
        // The ranges walk of `src`'s one segmented fold.
        let ranges_walk = |src: &str| kernel_ending(&optimised_module(src), "_range_reduce").to_string();
        let run = ". run_streaming :: < { :: accel_kernels :: abi :: RANGE_ITEMS } > (__i)";
        // Two arrays read at the element's index: a run of each, zipped.
        let zipped = ranges_walk(
            "fn f(a: Vector<i32>, b: Vector<u32>, lens: Vector<i32>) -> Vector<i32> {
                 a.zip_with(b, |x, y| x * (y as i32)).fold_seg(0, |p, q| p + q, lens)
             }",
        );
        assert!(zipped.contains("let __runs = (") && zipped.matches(run).count() == 2, "{zipped}");
        assert!(zipped.contains("(__runs . 0 [__j] , __runs . 1 [__j] ,)"), "{zipped}");
        // A manifest operand: its own run.
        let manifest =
            ranges_walk("fn f(a: Vector<i32>, lens: Vector<i32>) -> Vector<i32> { a.fold_seg(0, |p, q| p + q, lens) }");
        assert!(manifest.contains(&format!("prefetch_run : | __i : usize | unsafe {{ (__a0) {run}")), "{manifest}");
        // No read at the element's index: the run of indices.
        let none = super::own_reads::runs_streaming(&[]).to_string();
        assert!(none.contains("from_fn (| __j | __i + __j)"), "{none}");
    }

    #[test]
    fn fast_math_changes_the_float_operations_of_the_kernels_and_their_names() {
        let source = program(
            "fn f(xs: Vector<f32>, ys: Vector<f64>, ns: Vector<i32>) -> (Vector<f32>, Vector<f64>, Vector<i32>) {
                 (xs.map(|x| (x * 2.0 + 1.0) / x.sqrt() - x.exp().ln() + x.sin()),
                  ys.map(|y| y * y - y / 3.0), ns.map(|n| n * 3 + n / 2))
             }",
        );
        let compile = |fast_math| {
            let options = crate::pipeline::Options { fast_math, ..Default::default() };
            let p = crate::pipeline::optimise(&source, options);
            (module_source(std::slice::from_ref(&p)).unwrap(), p.kernel_prefix())
        };
        let ((ieee, ieee_prefix), (fast, fast_prefix)) = (compile(false), compile(true));
        assert_ne!(ieee_prefix, fast_prefix, "the two builds' kernels must not share names");
        assert!(!ieee.contains("Fast"), "{ieee}");
        for op in ["mul", "add", "div", "sqrt", "exp", "ln", "sub"] {
            assert!(fast.contains(&format!("fmath :: Fast :: {op} (")), "no fast {op}: {fast}");
        }
        // No fast form: `sin`; integers never change.
        assert!(fast.contains("ops :: Float :: sin ("), "{fast}");
        assert!(fast.contains("ops :: Arith :: mul (n_") && fast.contains("__cx . div (n_"), "{fast}");
    }

    #[test]
    fn unzip_emits_nothing() {
        let p = program("fn uz(xs: Vector<(f32, i32)>) -> (Vector<f32>, Vector<i32>) { xs.unzip() }");
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        assert!(!src.contains("_n0_"), "{src}");
    }
}
