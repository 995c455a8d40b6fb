//! Source types (`Vector<f32>`, `Matrix<(f32, i32)>`, `Array<u32, 3>`, `Nested<f64>`, `f32`, tuples)
//! to IR [`Type`]s.

use crate::types::{ElemType, ScalarType, Type};
use syn::{Error, GenericArgument, PathArguments};

/// The types a signature may name, for messages.
fn supported() -> String {
    format!(
        "supported types: `Scalar<E>`, `Vector<E>`, `Matrix<E>`, `Array<E, R>` (R = 0..=3), `Nested<E>`, scalars `{}` and tuples of them",
        ScalarType::all_names()
    )
}

/// Parses an element type: a scalar type or a tuple of element types.
pub fn elem_type(ty: &syn::Type) -> syn::Result<ElemType> {
    match ty {
        syn::Type::Paren(p) => elem_type(&p.elem),
        syn::Type::Tuple(t) if t.elems.len() < 2 => Err(Error::new_spanned(
            t,
            format!(
                "`()` and one-element tuples are not element types; elements are `{}` and tuples of two or more of them",
                ScalarType::all_names()
            ),
        )),
        syn::Type::Tuple(t) => Ok(ElemType::Tuple(t.elems.iter().map(elem_type).collect::<syn::Result<_>>()?)),
        syn::Type::Path(p) if p.qself.is_none() => {
            let name = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            match ScalarType::from_rust_name(&name) {
                Some(s) if p.path.segments.len() == 1 => Ok(ElemType::Scalar(s)),
                _ => Err(Error::new_spanned(
                    ty,
                    format!(
                        "`{}` is not an element type; elements are `{}` and tuples of them",
                        quote::quote!(#ty).to_string().replace(' ', ""),
                        ScalarType::all_names()
                    ),
                )),
            }
        }
        syn::Type::Reference(r) => Err(Error::new_spanned(
            r.and_token,
            "references are not used inside #[accel]: write the element type itself",
        )),
        other => Err(Error::new_spanned(other, format!("unsupported element type; {}", supported()))),
    }
}

/// Parses the type of a parameter, a `let` annotation or the result.
pub fn value_type(ty: &syn::Type) -> syn::Result<Type> {
    match ty {
        syn::Type::Paren(p) => value_type(&p.elem),
        syn::Type::Tuple(t) => Ok(Type::tuple(t.elems.iter().map(value_type).collect::<syn::Result<_>>()?)),
        syn::Type::Reference(r) => Err(Error::new_spanned(
            r.and_token,
            "write the type without `&`: #[accel] takes arrays by reference for you (the generated function has `&Vector<f32>` parameters)",
        )),
        syn::Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last().expect("a path has a segment");
            let name = seg.ident.to_string();
            if let Some(s) = ScalarType::from_rust_name(&name) {
                return Ok(Type::scalar(s));
            }
            let args: Vec<&GenericArgument> = match &seg.arguments {
                PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                PathArguments::None => Vec::new(),
                PathArguments::Parenthesized(_) => {
                    return Err(Error::new_spanned(seg, format!("unsupported type; {}", supported())));
                }
            };
            let elem_arg = |i: usize| -> syn::Result<ElemType> {
                match args.get(i) {
                    Some(GenericArgument::Type(t)) => elem_type(t),
                    _ => Err(Error::new_spanned(seg, format!("`{name}` needs its element type, as in `{name}<f32>`"))),
                }
            };
            let expect_args = |n: usize| -> syn::Result<()> {
                if args.is_empty() && name != "Array" {
                    elem_arg(0)?;
                }
                if args.len() == n {
                    Ok(())
                } else {
                    Err(Error::new_spanned(
                        seg,
                        format!("`{name}` takes {n} generic argument(s), found {}", args.len()),
                    ))
                }
            };
            match name.as_str() {
                "Scalar" | "Vector" | "Matrix" => {
                    expect_args(1)?;
                    let rank = match name.as_str() {
                        "Scalar" => 0,
                        "Vector" => 1,
                        _ => 2,
                    };
                    Ok(Type::array(elem_arg(0)?, rank))
                }
                "Array" => {
                    expect_args(2)?;
                    let rank = match args[1] {
                        GenericArgument::Const(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) => {
                            i.base10_parse::<usize>()?
                        }
                        GenericArgument::Type(syn::Type::Path(p)) if p.path.get_ident().is_some() => {
                            return Err(Error::new_spanned(
                                p,
                                "generic ranks are not supported: write the rank as a number (0 to 3)",
                            ));
                        }
                        other => {
                            return Err(Error::new_spanned(other, "the rank of an `Array` is a number from 0 to 3"));
                        }
                    };
                    if rank > 3 {
                        return Err(Error::new_spanned(
                            args[1],
                            format!("rank {rank} is not supported: arrays have rank 0 to 3"),
                        ));
                    }
                    Ok(Type::array(elem_arg(0)?, rank))
                }
                "Nested" => {
                    expect_args(1)?;
                    Ok(Type::Nested(elem_arg(0)?))
                }
                "Seq" => Err(Error::new_spanned(
                    seg,
                    "streams (`Seq`) are not supported yet; process the data as arrays, chunk by chunk",
                )),
                _ => Err(Error::new_spanned(
                    ty,
                    format!(
                        "`{name}` is not a type accel knows; {}. Generic type parameters are not supported: write one function per element type",
                        supported()
                    ),
                )),
            }
        }
        other => Err(Error::new_spanned(other, format!("unsupported type; {}", supported()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> syn::Result<Type> {
        value_type(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn parses_the_user_types() {
        assert_eq!(parse("Vector<f32>").unwrap().to_string(), "Vector<f32>");
        assert_eq!(parse("Array<(f32, i32), 3>").unwrap().to_string(), "Array<(f32, i32), 3>");
        assert_eq!(parse("accel::Matrix<u64>").unwrap().to_string(), "Matrix<u64>");
        assert_eq!(parse("(Vector<f32>, Scalar<i64>)").unwrap().to_string(), "(Vector<f32>, Scalar<i64>)");
        assert_eq!(parse("f64").unwrap(), Type::scalar(ScalarType::F64));
        assert_eq!(parse("Vector<(u8, f32)>").unwrap().to_string(), "Vector<(u8, f32)>");
        assert_eq!(parse("Matrix<(i16, (u16, i8))>").unwrap().to_string(), "Matrix<(i16, (u16, i8))>");
        assert_eq!(parse("u8").unwrap(), Type::scalar(ScalarType::U8));
    }

    #[test]
    fn rejects_others_with_a_reason() {
        assert!(parse("Array<f32, 4>").unwrap_err().to_string().contains("rank 4"));
        assert!(parse("&Vector<f32>").unwrap_err().to_string().contains("without `&`"));
        assert!(parse("Vec<f32>").unwrap_err().to_string().contains("not a type accel knows"));
        assert!(parse("Vector<String>").unwrap_err().to_string().contains("not an element type"));
        let u128 = parse("Vector<u128>").unwrap_err().to_string();
        assert!(u128.contains("not an element type") && u128.contains("i8 i16"), "{u128}");
    }
}
