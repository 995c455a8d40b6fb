//! The combinator IR.
//!
//! A program is one typed expression tree over two levels, as in Accelerate (ICFP'13 §2): the
//! scalar language of closures ([`ExprKind::Binary`], [`ExprKind::Index`], ...) and the collective
//! language of array combinators ([`ArrayOp`]). Source `let`s become [`ExprKind::Let`], so a
//! let-bound array used twice is one node, computed once. Closures are [`Lambda`]s whose
//! parameters are fresh variables; tuple patterns are already desugared into projections.
//!
//! What the IR can express beyond the current front end (later passes lower it):
//! - irregular arrays: [`Type::Nested`] with [`ArrayOp::NestedFromParts`],
//!   [`ArrayOp::NestedValues`], [`ArrayOp::NestedSegments`] and [`ArrayOp::NestedMap`] (parallel
//!   code per row, to be flattened into segmented operations, Haskell'17 §3-4);
//! - segment descriptors: [`Type::Segments`] built by [`ArrayOp::SegmentsFromLengths`] and read by
//!   [`ArrayOp::SegmentLengths`] / [`ArrayOp::SegmentOffsets`]; the segmented skeletons
//!   ([`ArrayOp::FoldSeg`], [`ArrayOp::ScanSeg`]) take a descriptor, not raw lengths;
//! - streams: [`Type::Seq`] and the operations of [`SeqOp`] (Haskell'17 §2);
//! - kernel plans: see [`crate::plan`], built from this IR.
//!
//! Every node carries its type; the front end guarantees that the IR it emits is well typed.

pub use crate::error::SourceRead;
use crate::types::{ElemType, ScalarType, Type};
use serde::{Deserialize, Serialize};

pub mod check;
mod pretty;
pub mod visit;

/// The stack of the thread that [`Program::from_json`] parses on: 256 MiB of address space,
/// room for nesting far deeper than any other pass could walk.
pub const PARSE_STACK: usize = 256 << 20;

/// A variable: a unique id plus the source name (for messages and generated code).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Var {
    pub id: u32,
    pub name: String,
}

/// A whole `#[accel]` function.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Program {
    pub name: String,
    pub params: Vec<(Var, Type)>,
    pub body: Expr,
    /// The reads by index written in the source, numbered by [`ReadSite::Source`]: what an
    /// index error of one names. Not part of the [`fingerprint`](Program::fingerprint): where
    /// the source is written does not change the device code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_sites: Vec<SourceRead>,
    /// Whether the device code may use fast math (`pipeline::Options::fast_math`). Set by
    /// `pipeline::try_optimise`, not by the front end: the interpreter ignores it. Part of the fingerprint, so
    /// that a function's IEEE and fast-math kernels never share a name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fast_math: bool,
}

impl Program {
    pub fn result_type(&self) -> &Type {
        &self.body.ty
    }

    /// Serialises the program (the macro embeds this text in the user's binary).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the IR is always serialisable")
    }

    /// Reads a program written by [`Program::to_json`], however deeply its expressions nest.
    ///
    /// Every `let` nests the rest of its block and every inlined call its body, so a program of
    /// a few calls (`examples::fluid::step`) nests past serde_json's default limit of 128 levels.
    /// The parser recurses once per level; it runs without the limit on a thread of its own with
    /// a [`PARSE_STACK`]-byte stack (reserved, not committed), so that the caller's stack, which
    /// may be a small one of a worker thread, does not bound it.
    pub fn from_json(text: &str) -> Result<Program, serde_json::Error> {
        let parse = || {
            let mut de = serde_json::Deserializer::from_str(text);
            de.disable_recursion_limit();
            let program = Program::deserialize(&mut de)?;
            de.end()?;
            Ok(program)
        };
        std::thread::scope(|scope| {
            match std::thread::Builder::new().stack_size(PARSE_STACK).spawn_scoped(scope, parse) {
                Ok(parser) => parser.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to be had: parse on this one.
                Err(_) => parse(),
            }
        })
    }

    /// A hash of the program's JSON (64-bit FNV-1a), stable across builds and platforms: the
    /// build script and the macro both compute it to agree on which device code belongs to
    /// which function.
    pub fn fingerprint(&self) -> u64 {
        // The build script reads the source as text and the macro as the compiler's tokens:
        // they agree on every read's number but not on its file and line.
        let placeless = Program { read_sites: Vec::new(), ..self.clone() };
        placeless
            .to_json()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    }

    /// The prefix of the names of this program's kernels in a device module: the function name
    /// and the fingerprint, so that equal names in different files never collide.
    pub fn kernel_prefix(&self) -> String {
        format!("{}_{:016x}", self.name, self.fingerprint())
    }
}

/// A typed expression.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
}

/// A closure: parameters with their types, and a body.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Lambda {
    pub params: Vec<(Var, Type)>,
    pub body: Box<Expr>,
}

impl Lambda {
    pub fn result_type(&self) -> &Type {
        &self.body.ty
    }
}

/// A scalar literal.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
pub enum Const {
    Bool(bool),
    /// An integer literal of the given integer type (its value fits that type).
    Int(i128, ScalarType),
    /// A float literal of type `f32` or `f64` (serialised by its bits, so that infinities and
    /// NaN survive the trip through the embedded JSON).
    Float(#[serde(with = "float_bits")] f64, ScalarType),
}

mod float_bits {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(v.to_bits())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        u64::deserialize(d).map(f64::from_bits)
    }
}

impl Const {
    pub fn scalar_type(&self) -> ScalarType {
        match self {
            Const::Bool(_) => ScalarType::Bool,
            Const::Int(_, t) | Const::Float(_, t) => *t,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum UnaryOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Logical not for `bool`, bitwise not for integers.
    Not,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Integer division by zero is `Error::DivisionByZero`.
    Div,
    Rem,
    /// `a.div_euclid(b)`, `a.rem_euclid(b)`: division with a remainder that is never negative
    /// (integer division by zero is `Error::DivisionByZero`, as for `/` and `%`).
    DivEuclid,
    RemEuclid,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Short-circuit `&&`.
    And,
    /// Short-circuit `||`.
    Or,
    BitAnd,
    BitOr,
    BitXor,
    /// Shifts take any integer amount, reduced modulo the bit width (`wrapping_shl`).
    Shl,
    Shr,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            DivEuclid => "div_euclid",
            RemEuclid => "rem_euclid",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }

    /// Whether the operator divides: on integers it fails on a zero divisor.
    pub fn is_division(self) -> bool {
        use BinaryOp::*;
        matches!(self, Div | Rem | DivEuclid | RemEuclid)
    }

    /// Whether the operator is written as a method (`a.div_euclid(b)`) rather than infix.
    pub fn is_method(self) -> bool {
        self.symbol().starts_with(char::is_alphabetic)
    }

    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }
}

/// Functions of the scalar language beyond operators, each named and typed as Rust's method of
/// the same name on `f32`/`f64` or the integer types ([`MathFn::signature`] says which types).
/// Integer arithmetic wraps as the operators do; `clamp` with `lo > hi` returns `lo` below `lo`
/// and `hi` otherwise (Rust panics); `checked_*` take the default of `.unwrap_or(d)` as a third
/// argument, since the scalar language has no `Option`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum MathFn {
    Sqrt,
    Cbrt,
    Exp,
    Exp2,
    ExpM1,
    Ln,
    Ln1p,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Hypot,
    Powf,
    Powi,
    Abs,
    Signum,
    Min,
    Max,
    Clamp,
    Floor,
    Ceil,
    Round,
    Trunc,
    Fract,
    Recip,
    ToRadians,
    ToDegrees,
    Copysign,
    MulAdd,
    Erf,
    IsNan,
    IsFinite,
    Pow,
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    RotateLeft,
    RotateRight,
    SaturatingAdd,
    SaturatingSub,
    SaturatingMul,
    CheckedAdd,
    CheckedSub,
    CheckedMul,
    CheckedDiv,
    CheckedRem,
}

/// The family of types a math function is defined for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Domain {
    Float,
    Integer,
    /// Signed integers and floats.
    Signed,
    Numeric,
}

impl Domain {
    fn holds(self, s: ScalarType) -> bool {
        match self {
            Domain::Float => s.is_float(),
            Domain::Integer => s.is_integer(),
            Domain::Signed => s.is_signed(),
            Domain::Numeric => s.is_numeric(),
        }
    }
}

impl MathFn {
    /// The method name in source.
    pub fn method_name(self) -> &'static str {
        use MathFn::*;
        match self {
            Sqrt => "sqrt",
            Cbrt => "cbrt",
            Exp => "exp",
            Exp2 => "exp2",
            ExpM1 => "exp_m1",
            Ln => "ln",
            Ln1p => "ln_1p",
            Log2 => "log2",
            Log10 => "log10",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Atan2 => "atan2",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Hypot => "hypot",
            Powf => "powf",
            Powi => "powi",
            Abs => "abs",
            Signum => "signum",
            Min => "min",
            Max => "max",
            Clamp => "clamp",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Fract => "fract",
            Recip => "recip",
            ToRadians => "to_radians",
            ToDegrees => "to_degrees",
            Copysign => "copysign",
            MulAdd => "mul_add",
            Erf => "erf",
            IsNan => "is_nan",
            IsFinite => "is_finite",
            Pow => "pow",
            CountOnes => "count_ones",
            LeadingZeros => "leading_zeros",
            TrailingZeros => "trailing_zeros",
            RotateLeft => "rotate_left",
            RotateRight => "rotate_right",
            SaturatingAdd => "saturating_add",
            SaturatingSub => "saturating_sub",
            SaturatingMul => "saturating_mul",
            CheckedAdd => "checked_add",
            CheckedSub => "checked_sub",
            CheckedMul => "checked_mul",
            CheckedDiv => "checked_div",
            CheckedRem => "checked_rem",
        }
    }

    pub const ALL: [MathFn; 54] = {
        use MathFn::*;
        [
            Sqrt,
            Cbrt,
            Exp,
            Exp2,
            ExpM1,
            Ln,
            Ln1p,
            Log2,
            Log10,
            Sin,
            Cos,
            Tan,
            Asin,
            Acos,
            Atan,
            Atan2,
            Sinh,
            Cosh,
            Tanh,
            Hypot,
            Powf,
            Powi,
            Abs,
            Signum,
            Min,
            Max,
            Clamp,
            Floor,
            Ceil,
            Round,
            Trunc,
            Fract,
            Recip,
            ToRadians,
            ToDegrees,
            Copysign,
            MulAdd,
            Erf,
            IsNan,
            IsFinite,
            Pow,
            CountOnes,
            LeadingZeros,
            TrailingZeros,
            RotateLeft,
            RotateRight,
            SaturatingAdd,
            SaturatingSub,
            SaturatingMul,
            CheckedAdd,
            CheckedSub,
            CheckedMul,
            CheckedDiv,
            CheckedRem,
        ]
    };

    pub fn from_method_name(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|f| f.method_name() == name)
    }

    /// Number of arguments, the receiver included.
    pub fn arity(self) -> usize {
        use MathFn::*;
        match self {
            Atan2 | Hypot | Powf | Powi | Min | Max | Copysign | Pow | RotateLeft | RotateRight | SaturatingAdd
            | SaturatingSub | SaturatingMul => 2,
            MulAdd | Clamp | CheckedAdd | CheckedSub | CheckedMul | CheckedDiv | CheckedRem => 3,
            Sqrt | Cbrt | Exp | Exp2 | ExpM1 | Ln | Ln1p | Log2 | Log10 | Sin | Cos | Tan | Asin | Acos | Atan
            | Sinh | Cosh | Tanh | Abs | Signum | Floor | Ceil | Round | Trunc | Fract | Recip | ToRadians
            | ToDegrees | Erf | IsNan | IsFinite | CountOnes | LeadingZeros | TrailingZeros => 1,
        }
    }

    /// Whether fast math (`#[accel(fast_math)]`) has a version of its own on the GPU
    /// (`accel_kernels::fmath::Fast`); the others keep their IEEE code there.
    pub fn has_fast_form(self) -> bool {
        use MathFn::*;
        match self {
            Sqrt | Exp | Exp2 | Ln | Log2 | Recip => true,
            Cbrt | ExpM1 | Ln1p | Log10 | Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Cosh | Tanh | Hypot
            | Powf | Powi | Abs | Signum | Min | Max | Clamp | Floor | Ceil | Round | Trunc | Fract | ToRadians
            | ToDegrees | Copysign | MulAdd | Erf | IsNan | IsFinite | Pow | CountOnes | LeadingZeros
            | TrailingZeros | RotateLeft | RotateRight | SaturatingAdd | SaturatingSub | SaturatingMul | CheckedAdd
            | CheckedSub | CheckedMul | CheckedDiv | CheckedRem => false,
        }
    }

    fn domain(self) -> Domain {
        use MathFn::*;
        match self {
            Min | Max | Clamp => Domain::Numeric,
            Abs | Signum => Domain::Signed,
            Pow | CountOnes | LeadingZeros | TrailingZeros | RotateLeft | RotateRight | SaturatingAdd
            | SaturatingSub | SaturatingMul | CheckedAdd | CheckedSub | CheckedMul | CheckedDiv | CheckedRem => {
                Domain::Integer
            }
            Sqrt | Cbrt | Exp | Exp2 | ExpM1 | Ln | Ln1p | Log2 | Log10 | Sin | Cos | Tan | Asin | Acos | Atan
            | Atan2 | Sinh | Cosh | Tanh | Hypot | Powf | Powi | Floor | Ceil | Round | Trunc | Fract | Recip
            | ToRadians | ToDegrees | Copysign | MulAdd | Erf | IsNan | IsFinite => Domain::Float,
        }
    }

    /// The types of the arguments (the receiver first) and of the result of `f` applied to a
    /// receiver of type `s`, or `None` where `f` is not defined for `s`. The one typing rule of
    /// the math functions: the front end and the type checker both read it.
    pub fn signature(self, s: ScalarType) -> Option<(Vec<ScalarType>, ScalarType)> {
        use MathFn::*;
        if !self.domain().holds(s) {
            return None;
        }
        let mut args = vec![s; self.arity()];
        if let Powi = self {
            args[1] = ScalarType::I32;
        }
        if let Pow | RotateLeft | RotateRight = self {
            args[1] = ScalarType::U32;
        }
        let result = match self {
            IsNan | IsFinite => ScalarType::Bool,
            CountOnes | LeadingZeros | TrailingZeros => ScalarType::U32,
            _ => s,
        };
        Some((args, result))
    }

    /// Whether the function is a transcendental one, tens of instructions or a table: elementwise
    /// kernels that call one run an element per thread per step.
    pub fn is_transcendental(self) -> bool {
        use MathFn::*;
        match self {
            Cbrt | Exp | Exp2 | ExpM1 | Ln | Ln1p | Log2 | Log10 | Sin | Cos | Tan | Asin | Acos | Atan | Atan2
            | Sinh | Cosh | Tanh | Hypot | Powf | Erf => true,
            Sqrt | Powi | Abs | Signum | Min | Max | Clamp | Floor | Ceil | Round | Trunc | Fract | Recip
            | ToRadians | ToDegrees | Copysign | MulAdd | IsNan | IsFinite | Pow | CountOnes | LeadingZeros
            | TrailingZeros | RotateLeft | RotateRight | SaturatingAdd | SaturatingSub | SaturatingMul | CheckedAdd
            | CheckedSub | CheckedMul | CheckedDiv | CheckedRem => false,
        }
    }

    /// The trait of `accel_kernels::ops` that implements the function.
    pub fn ops_trait(self) -> &'static str {
        match self.domain() {
            Domain::Float => "Float",
            Domain::Integer => "Int",
            Domain::Signed | Domain::Numeric => "Arith",
        }
    }
}

/// Direction of a scan.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Direction {
    Left,
    Right,
}

/// What a scan returns along the scanned dimension of length `n`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ScanKind {
    /// `scanl z f` / `scanr z f`: `n + 1` values, the seed first (last for `scanr`).
    WithSeed,
    /// `scanl1` / `scanr1`: `n` values, no seed.
    Inclusive,
    /// `scanl_total`: the `n` exclusive prefixes and, separately, the total.
    ExclusiveAndTotal,
}

/// The axis of a row/column `replicate` or `slice`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Axis {
    Rows,
    Cols,
}

/// The neighbourhood of a stencil.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum StencilShape {
    /// Vector, `|l, c, r|`.
    S3,
    /// Vector, five neighbours.
    S5,
    /// Matrix, `[[E; 3]; 3]`, passed as 9 parameters in row-major order.
    S3x3,
    /// Matrix, `[[E; 5]; 5]`, passed as 25 parameters in row-major order.
    S5x5,
}

impl StencilShape {
    /// Rank of the arrays the stencil applies to.
    pub fn rank(self) -> usize {
        match self {
            StencilShape::S3 | StencilShape::S5 => 1,
            StencilShape::S3x3 | StencilShape::S5x5 => 2,
        }
    }

    /// Half width of the neighbourhood along each dimension.
    pub fn radius(self) -> usize {
        match self {
            StencilShape::S3 | StencilShape::S3x3 => 1,
            StencilShape::S5 | StencilShape::S5x5 => 2,
        }
    }

    /// Number of neighbours (closure parameters).
    pub fn points(self) -> usize {
        let w = 2 * self.radius() + 1;
        w.pow(self.rank() as u32)
    }

    pub fn method_name(self) -> &'static str {
        match self {
            StencilShape::S3 => "stencil3",
            StencilShape::S5 => "stencil5",
            StencilShape::S3x3 => "stencil3x3",
            StencilShape::S5x5 => "stencil5x5",
        }
    }
}

/// What a stencil reads outside the array.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub enum Boundary {
    /// The nearest element inside.
    Clamp,
    /// Reflection about the edge, the edge not repeated: index -1 reads 1.
    Mirror,
    /// Periodic: index -1 reads n-1.
    Wrap,
    /// A fixed value (an element expression).
    Constant(Box<Expr>),
}

impl Boundary {
    /// The rule of this boundary, without a constant's value.
    pub fn rule(&self) -> accel_kernels::boundary::Rule {
        use accel_kernels::boundary::Rule;
        match self {
            Boundary::Clamp => Rule::Clamp,
            Boundary::Mirror => Rule::Mirror,
            Boundary::Wrap => Rule::Wrap,
            Boundary::Constant(_) => Rule::Constant,
        }
    }
}

/// The collective operations.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub enum ArrayOp {
    // --- build ---
    /// `generate(shape, |ix| e)`. The fusion pass also makes one of every producer it delays
    /// (see [`crate::fusion`]); `from` then names the combinators it stands for, innermost first
    /// (empty for a `generate` the user wrote).
    Generate {
        shape: Expr,
        f: Lambda,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        from: Vec<String>,
    },
    /// `unit(e)`: a rank-0 array.
    Unit(Expr),
    /// The element of a rank-0 array (`s.get()`), a scalar-language value.
    The(Expr),

    // --- producers ---
    /// An operation each of whose elements is a function of its index and of its operands'
    /// elements (see [`Producer`]).
    Producer(Producer),

    // --- reduce (innermost dimension; `z: None` is the `fold1` form) ---
    Fold {
        z: Option<Expr>,
        f: Lambda,
        a: Expr,
    },
    /// Reduce every element to a rank-0 array.
    FoldAll {
        z: Option<Expr>,
        f: Lambda,
        a: Expr,
    },
    /// Reduce each segment of the innermost dimension.
    FoldSeg {
        z: Option<Expr>,
        f: Lambda,
        a: Expr,
        segments: Expr,
    },

    // --- scan (innermost dimension) ---
    Scan {
        dir: Direction,
        kind: ScanKind,
        z: Option<Expr>,
        f: Lambda,
        a: Expr,
    },
    /// Left scans restarted at every segment: `WithSeed` (n+1 per segment) or `Inclusive`.
    ScanSeg {
        kind: ScanKind,
        z: Option<Expr>,
        f: Lambda,
        a: Expr,
        segments: Expr,
    },

    // --- move ---
    /// Scatter: `f` maps each index of `a` to `(keep, destination)`; kept elements are combined
    /// into `defaults` in ascending source order as `combine(new, old)`.
    Permute {
        defaults: Expr,
        f: Lambda,
        combine: Lambda,
        a: Expr,
    },
    /// `permute` of the result of `expand`, as one kernel that never writes the expanded array:
    /// fused form 4 of [`crate::fusion`], which only fusion writes. For each element `x` of `a`
    /// and each `j < count(x)`, the expanded element `y = value(x, j)`, at index `k` of the
    /// expanded array, goes to `target(k, y)` (`permute`'s `f`, given the element it would read)
    /// as `elem(k, y)` (the source element), combined into `defaults` with `combine`. What it
    /// computes is the unfused program `crate::fusion::expand_permute::unfused` writes.
    ExpandPermute {
        defaults: Expr,
        count: Lambda,
        value: Lambda,
        a: Expr,
        target: Lambda,
        elem: Lambda,
        combine: Lambda,
    },
    /// Same elements, new shape of the same size.
    Reshape {
        shape: Expr,
        a: Expr,
    },
    /// An array of tuples as the tuple of its fields' arrays (`unzip`): the columns are split,
    /// never copied, on backends that store tuples as structure of arrays.
    Unzip(Expr),
    /// Concatenation along the innermost dimension; outer dimensions intersect.
    Concat {
        a: Expr,
        b: Expr,
    },
    /// Matrix -> vector: one row or one column.
    Slice {
        axis: Axis,
        index: Expr,
        a: Expr,
    },

    // --- neighbourhood ---
    Stencil {
        shape: StencilShape,
        boundary: Boundary,
        f: Lambda,
        a: Expr,
    },

    // --- irregular ---
    /// For each `x`, `count(x)` results `value(x, i)`, concatenated in order.
    Expand {
        count: Lambda,
        value: Lambda,
        a: Expr,
    },
    /// The elements satisfying `pred`, in order.
    Filter {
        pred: Lambda,
        a: Expr,
    },

    // --- control ---
    /// Array-level loop: while `cond(x)` (a `Scalar<bool>`) holds, `x = step(x)`.
    Awhile {
        init: Expr,
        cond: Lambda,
        step: Lambda,
    },

    // --- segments and nested arrays ---
    SegmentsFromLengths(Expr),
    SegmentLengths(Expr),
    /// `n + 1` offsets, the first 0 and the last the total length.
    SegmentOffsets(Expr),
    NestedFromParts {
        segments: Expr,
        values: Expr,
    },
    NestedValues(Expr),
    NestedSegments(Expr),
    /// Parallel code per row; lowered by flattening into segmented operations.
    NestedMap {
        f: Lambda,
        a: Expr,
    },

    // --- streams ---
    Seq(SeqOp),
}

/// The producers: operations each of whose elements is a function of its index and of its
/// operands' elements, and nothing else. Each one's index function is written once, in
/// [`crate::fusion`]'s `producers` pass, which lowers every producer to a [`ArrayOp::Generate`]
/// before any backend sees the program (composing them into their consumers when fusion is on);
/// the interpreter alone evaluates them as written.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub enum Producer {
    /// `fill(shape, v)`.
    Fill {
        shape: Expr,
        value: Expr,
    },
    /// `iota(n)`: `0, 1, .., n-1` of the result's element type.
    Iota {
        n: Expr,
    },
    Map {
        f: Lambda,
        a: Expr,
    },
    /// `imap(|ix, x| e)`.
    IMap {
        f: Lambda,
        a: Expr,
    },
    /// Result shape is the intersection of the two shapes.
    ZipWith {
        f: Lambda,
        a: Expr,
        b: Expr,
    },
    /// Gather: `f` maps each index of `shape` to an index of `a`.
    Backpermute {
        shape: Expr,
        f: Lambda,
        a: Expr,
    },
    /// Reverse the innermost dimension.
    Reverse(Expr),
    /// Swap the two dimensions of a matrix.
    Transpose(Expr),
    /// The first `n` of the innermost dimension (fewer if shorter).
    Take {
        n: Expr,
        a: Expr,
    },
    /// All but the first `n` of the innermost dimension.
    Drop {
        n: Expr,
        a: Expr,
    },
    /// Vector -> matrix: `Rows` repeats the vector as `n` rows, `Cols` as `n` columns.
    Replicate {
        axis: Axis,
        n: Expr,
        a: Expr,
    },
}

/// Stream operations (Haskell'17 §2).
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub enum SeqOp {
    /// A stream parameter of the program.
    StreamIn(Expr),
    /// `produce(n, |i| array)`.
    Produce {
        n: Expr,
        f: Lambda,
    },
    Map {
        f: Lambda,
        s: Expr,
    },
    ZipWith {
        f: Lambda,
        a: Expr,
        b: Expr,
    },
    /// Reduce a stream of arrays to one array.
    Fold {
        z: Expr,
        f: Lambda,
        s: Expr,
    },
    /// A stream of arrays -> the stream of their elements.
    Elements(Expr),
    /// A stream of scalars -> the vector of them.
    Tabulate(Expr),
    /// Concatenate a stream of arrays into one.
    Collect(Expr),
}

/// The operation an [`ExprKind::Index`] read belongs to, named by its out-of-bounds error.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum ReadSite {
    /// A checked read that a pass made (the source read of a `take`, a `slice`, ...).
    #[default]
    Index,
    /// `xs[ix]` in source: read number `n` of [`Program::read_sites`], which its
    /// out-of-bounds error names.
    Source(u32),
    /// `xs[ix]` in source (read number `read`, as [`ReadSite::Source`]) some of whose components,
    /// those in the bit mask `proved` (bit `d` for component `d`), [`crate::in_bounds`] proved
    /// inside the matching dimensions of the array, but not all: a backend may check only the
    /// others (a matrix product's `b[(p, j)]`, whose `j` ranges over `b`'s columns), with the
    /// error of the whole read where one is outside.
    SourcePartly { read: u32, proved: u32 },
    /// The source read of a `backpermute` that fusion turned into a `generate`.
    Backpermute,
    /// A read that fusion made of an elementwise operand (of a `map`, `zip_with`, or sibling
    /// reductions over one shape) at the output's own index, which lies inside the operand's shape
    /// by construction, or one that [`crate::in_bounds`] proved inside (a read at the own index
    /// of a closure that runs over the array's shape): every backend reads it unchecked, so it
    /// cannot fail.
    Elementwise,
    /// A read that flattening made of a nested map's own data (a value of a row, a per-row value
    /// at a row, a row's length from the segment offsets, a probe of the row-of-value search),
    /// at an index inside the array by construction for every row and value: device kernels read
    /// it unchecked, also when the array is delayed, so it cannot fail.
    Flattened,
}

impl ReadSite {
    /// The operation name errors give.
    pub fn name(self) -> &'static str {
        match self {
            ReadSite::Index
            | ReadSite::Source(_)
            | ReadSite::SourcePartly { .. }
            | ReadSite::Elementwise
            | ReadSite::Flattened => "index",
            ReadSite::Backpermute => "backpermute",
        }
    }

    /// Whether the read is checked against the array's shape on every backend.
    pub fn is_checked(self) -> bool {
        match self {
            ReadSite::Index | ReadSite::Source(_) | ReadSite::SourcePartly { .. } | ReadSite::Backpermute => true,
            ReadSite::Elementwise | ReadSite::Flattened => false,
        }
    }

    /// The error of this read at `index`, outside an array of `shape`.
    pub fn out_of_bounds(self, index: &[usize], shape: &[usize]) -> crate::Error {
        let e = crate::Error::index_out_of_bounds(self.name(), index, shape);
        match self.number() {
            Some(n) => e.at_read(n),
            None => e,
        }
    }

    /// The number of a read written in the source.
    pub fn number(self) -> Option<u32> {
        match self {
            ReadSite::Source(n) | ReadSite::SourcePartly { read: n, .. } => Some(n),
            ReadSite::Index | ReadSite::Backpermute | ReadSite::Elementwise | ReadSite::Flattened => None,
        }
    }
}

/// The node kinds.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub enum ExprKind {
    Var(Var),
    Const(Const),
    Let {
        var: Var,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    Tuple(Vec<Expr>),
    /// Field `i` of a tuple.
    Proj(Box<Expr>, usize),
    /// A conditional at either level (scalar `if` or array `if`).
    If {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },

    // --- scalar language ---
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e as T`, with Rust's semantics (float -> int saturates, NaN -> 0).
    Cast(Box<Expr>, ScalarType),
    Math(MathFn, Vec<Expr>),
    /// `xs[ix]`: a bounds-checked read of any array in scope. `site` names the operation that
    /// reads in errors (a fused `backpermute` reads its source this way).
    Index {
        array: Box<Expr>,
        index: Box<Expr>,
        #[serde(default)]
        site: ReadSite,
    },
    /// The shape of an array as an index value.
    Shape(Box<Expr>),
    /// The number of elements of an array (the number of rows of a nested array).
    Len(Box<Expr>),
    /// The segment of a segment descriptor that holds value `index`: the last segment starting at
    /// or before it (empty segments start where the next one does), a `usize`; for an index past
    /// the values, the last segment; for no segments, 0 (`accel_kernels::search::last_at_most`,
    /// on every backend). It cannot fail. Flattening's
    /// per-element segment lookup: a segmented skeleton over the same segments supplies it for
    /// its own elements, elsewhere it is a binary search of the offsets.
    SegmentOf {
        segments: Box<Expr>,
        index: Box<Expr>,
    },
    /// `iterate(n, init, f)`: apply `f` `n` times.
    Iterate {
        count: Box<Expr>,
        init: Box<Expr>,
        f: Lambda,
    },
    /// `while_loop(init, cond, step)`.
    WhileLoop {
        init: Box<Expr>,
        cond: Lambda,
        step: Lambda,
    },

    // --- collective language ---
    Array(Box<ArrayOp>),
}

impl Expr {
    pub fn new(kind: ExprKind, ty: Type) -> Expr {
        Expr { kind, ty }
    }

    pub fn var(v: Var, ty: Type) -> Expr {
        Expr::new(ExprKind::Var(v), ty)
    }

    pub fn array(op: ArrayOp, ty: Type) -> Expr {
        Expr::new(ExprKind::Array(Box::new(op)), ty)
    }

    pub fn usize(n: usize) -> Expr {
        Expr::new(ExprKind::Const(Const::Int(n as i128, ScalarType::Usize)), Type::scalar(ScalarType::Usize))
    }

    pub fn elem_type(&self) -> Option<&ElemType> {
        self.ty.as_elem()
    }
}

impl Producer {
    /// The name of the combinator as the user writes it.
    pub fn name(&self) -> &'static str {
        use Producer::*;
        match self {
            Fill { .. } => "fill",
            Iota { .. } => "iota",
            Map { .. } => "map",
            IMap { .. } => "imap",
            ZipWith { .. } => "zip_with",
            Backpermute { .. } => "backpermute",
            Reverse(_) => "reverse",
            Transpose(_) => "transpose",
            Take { .. } => "take",
            Drop { .. } => "drop",
            Replicate { axis: Axis::Rows, .. } => "replicate_rows",
            Replicate { axis: Axis::Cols, .. } => "replicate_cols",
        }
    }
}

impl From<Producer> for ArrayOp {
    fn from(p: Producer) -> ArrayOp {
        ArrayOp::Producer(p)
    }
}

impl ArrayOp {
    /// The name of the combinator as the user writes it.
    pub fn name(&self) -> &'static str {
        use ArrayOp::*;
        match self {
            Generate { .. } => "generate",
            Unit(_) => "unit",
            The(_) => "get",
            Producer(p) => p.name(),
            Fold { z: Some(_), .. } => "fold",
            Fold { z: None, .. } => "fold1",
            FoldAll { .. } => "fold_all",
            FoldSeg { .. } => "fold_seg",
            Scan { dir, kind, .. } => match (dir, kind) {
                (Direction::Left, ScanKind::WithSeed) => "scanl",
                (Direction::Left, ScanKind::Inclusive) => "scanl1",
                (Direction::Left, ScanKind::ExclusiveAndTotal) => "scanl_total",
                (Direction::Right, ScanKind::WithSeed) => "scanr",
                (Direction::Right, ScanKind::Inclusive) => "scanr1",
                (Direction::Right, ScanKind::ExclusiveAndTotal) => "scanr_total",
            },
            ScanSeg { kind: ScanKind::Inclusive, .. } => "scanl1_seg",
            ScanSeg { .. } => "scanl_seg",
            Permute { .. } => "permute",
            ExpandPermute { .. } => "expand_permute",
            Unzip(_) => "unzip",
            Reshape { .. } => "reshape",
            Concat { .. } => "concat",
            Slice { axis: Axis::Rows, .. } => "slice_row",
            Slice { axis: Axis::Cols, .. } => "slice_col",
            Stencil { shape, .. } => shape.method_name(),
            Expand { .. } => "expand",
            Filter { .. } => "filter",
            Awhile { .. } => "awhile",
            SegmentsFromLengths(_) => "segments_from_lengths",
            SegmentLengths(_) => "lengths",
            SegmentOffsets(_) => "offsets",
            NestedFromParts { .. } => "nested",
            NestedValues(_) => "values",
            NestedSegments(_) => "segments",
            NestedMap { .. } => "nested_map",
            Seq(op) => match op {
                SeqOp::StreamIn(_) => "stream_in",
                SeqOp::Produce { .. } => "produce",
                SeqOp::Map { .. } => "seq_map",
                SeqOp::ZipWith { .. } => "seq_zip_with",
                SeqOp::Fold { .. } => "seq_fold",
                SeqOp::Elements(_) => "elements",
                SeqOp::Tabulate(_) => "tabulate",
                SeqOp::Collect(_) => "collect",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_survive_json_with_non_finite_constants() {
        let f = |v: f64| Expr::new(ExprKind::Const(Const::Float(v, ScalarType::F32)), Type::scalar(ScalarType::F32));
        let body = Expr::new(
            ExprKind::Tuple(vec![f(f64::INFINITY), f(f64::NEG_INFINITY), f(f64::NAN), f(-0.0), f(0.1)]),
            Type::Elem(ElemType::Tuple(vec![ElemType::Scalar(ScalarType::F32); 5])),
        );
        let p = Program { name: "consts".into(), params: vec![], body, read_sites: vec![], fast_math: false };
        let back = Program::from_json(&p.to_json()).unwrap();
        let ExprKind::Tuple(parts) = back.body.kind else { panic!("a tuple") };
        let bits: Vec<u64> = parts
            .iter()
            .map(|e| match e.kind {
                ExprKind::Const(Const::Float(v, _)) => v.to_bits(),
                _ => panic!("a float"),
            })
            .collect();
        let want: Vec<u64> =
            [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -0.0, 0.1].iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, want);
    }

    #[test]
    fn deeply_nested_programs_survive_json() {
        // `let x1 = 1; let x2 = x1; ...; x_depth`: each `let` one level deeper, 16 times
        // serde_json's default limit.
        let depth = 2048u32;
        let scalar = Type::scalar(ScalarType::I32);
        let var = |id: u32| Var { id, name: format!("x{id}") };
        let mut body = Expr::new(ExprKind::Var(var(depth)), scalar.clone());
        for id in (1..=depth).rev() {
            let value = if id == 1 {
                Expr::new(ExprKind::Const(Const::Int(1, ScalarType::I32)), scalar.clone())
            } else {
                Expr::new(ExprKind::Var(var(id - 1)), scalar.clone())
            };
            body =
                Expr::new(ExprKind::Let { var: var(id), value: Box::new(value), body: Box::new(body) }, scalar.clone());
        }
        let p = Program { name: "deep".into(), params: vec![], body, read_sites: vec![], fast_math: false };
        assert_eq!(Program::from_json(&p.to_json()).unwrap(), p);
    }
}
