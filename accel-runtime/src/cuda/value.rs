//! Values on a device: what the executor computes with, and the bridge to typed host values.
//!
//! A [`DArray`] is a shape plus one device buffer per leaf column of its element type (the same
//! structure of arrays as the host's [`Columns`]). Buffers are shared (`Arc`): a `reshape`, a
//! `let` used twice or a result kept in an [`Array`] never copies them. Elements travel as
//! dynamic [`ElemValue`]s; [`words`] flattens any value into the `u64` kernel parameters that
//! `accel_core::kernel` describes.

use super::driver::StreamId;
use super::{DeviceBuffer, Gpu};
use crate::array::Array;
use crate::elem::{Columns, Elem};
use crate::nested::{Nested, Segments};
use crate::value::FromValue;
use accel_core::interp::HostValue;
use accel_core::types::ElemType;
use accel_core::value::{ElemValue, ScalarValue, Value};
use accel_core::{Error, Result};
use accel_kernels::abi::Word;
use std::sync::{Arc, Mutex};

/// An array on a device.
#[derive(Clone, Debug)]
pub struct DArray {
    pub elem: ElemType,
    pub shape: Vec<usize>,
    /// One buffer per leaf of `elem`, in leaf order.
    pub columns: Vec<Arc<DeviceBuffer>>,
    /// The one element of a rank-0 array the host made (`unit`), which reads take from here
    /// without waiting for the device: a loop's condition or counter costs no round trip.
    pub known: Option<ElemValue>,
}

/// Segment descriptors on a device: `count + 1` offsets, the first 0 and the last `total`.
#[derive(Clone, Debug)]
pub struct DSegments {
    pub count: usize,
    pub total: usize,
    pub offsets: Arc<DeviceBuffer>,
    /// The row holding the first value of each range of values of a width
    /// (`accel_kernels::ranges::range_starts`), computed by the first walk over these segments'
    /// values by ranges of that width, with the stream it ran on, and shared by their clones: a
    /// CSR matrix multiplied again on that stream finds them here (another stream, not ordered
    /// after that walk, computes its own).
    pub range_starts: Arc<Mutex<Vec<RangeStarts>>>,
}

/// The range starts of segments for ranges of `width` values, computed on `stream`.
#[derive(Debug)]
pub struct RangeStarts {
    pub stream: StreamId,
    pub width: usize,
    pub starts: Arc<DeviceBuffer>,
}

/// Any value of the IR, with its collective parts on a device.
#[derive(Clone, Debug)]
pub enum DValue {
    Elem(ElemValue),
    Array(DArray),
    Segments(DSegments),
    Nested { segments: DSegments, values: DArray },
    Tuple(Vec<DValue>),
}

impl DArray {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Uploads host columns.
    pub fn upload<E: Elem>(gpu: &Gpu, shape: &[usize], columns: &E::Columns) -> Result<DArray> {
        let columns = columns.leaf_bytes().iter().map(|b| gpu.upload(b).map(Arc::new)).collect::<Result<_>>()?;
        Ok(DArray { elem: E::elem_type(), shape: shape.to_vec(), columns, known: None })
    }

    /// Downloads the columns (waiting for the work that computes them).
    pub fn download_columns<E: Elem>(&self) -> Result<E::Columns> {
        let n = self.len();
        let mut leaves = Vec::with_capacity(self.columns.len());
        for (col, t) in self.columns.iter().zip(self.elem.leaves()) {
            let mut bytes = vec![0u8; n * t.size_bytes()];
            col.download_into(0, &mut bytes)?;
            leaves.push(bytes);
        }
        E::Columns::from_leaf_bytes(&mut leaves.into_iter()).ok_or_else(|| {
            Error::invalid_argument("download", format!("the device holds no valid `{}` array", self.elem))
        })
    }

    /// Element `i` (row-major): a unit's known element, or downloaded (after the work that
    /// computes it).
    pub fn read(&self, i: usize) -> Result<ElemValue> {
        if let Some(v) = &self.known {
            return Ok(v.clone());
        }
        let mut leaves = Vec::new();
        for (col, t) in self.columns.iter().zip(self.elem.leaves()) {
            let size = t.size_bytes();
            let mut bytes = vec![0u8; size];
            col.download_into(i * size, &mut bytes)?;
            leaves.push(scalar_from_bytes(t, &bytes));
        }
        Ok(assemble(&self.elem, &mut leaves.into_iter()))
    }
}

impl DSegments {
    /// Segments of `count` rows and `total` values whose `count + 1` offsets `offsets` holds.
    pub fn new(count: usize, total: usize, offsets: Arc<DeviceBuffer>) -> DSegments {
        DSegments { count, total, offsets, range_starts: Arc::default() }
    }

    /// Host segment descriptors on `gpu`: their device copy, uploaded and kept the first time.
    pub fn of(gpu: &Gpu, s: &Segments) -> Result<DSegments> {
        if let Some(d) = s.device_copy()
            && d.offsets.belongs_to(gpu)
        {
            return Ok(d.clone());
        }
        let offsets = Arc::new(gpu.upload(bytemuck::cast_slice(s.offsets()))?);
        let d = DSegments::new(s.count(), s.total(), offsets);
        s.keep_device_copy(d.clone());
        Ok(d)
    }

    /// The descriptors on the host, which keep these as their device copy.
    pub fn download(&self) -> Result<Segments> {
        let mut bytes = vec![0u8; (self.count + 1) * size_of::<usize>()];
        self.offsets.download_into(0, &mut bytes)?;
        Segments::from_device(self.clone(), bytemuck::pod_collect_to_vec(&bytes))
    }
}

/// The executor evaluates host code with the interpreter's evaluator (`accel_core::interp::Host`).
impl HostValue for DValue {
    fn from_elem(v: ElemValue) -> DValue {
        DValue::Elem(v)
    }

    fn into_elem(self) -> Result<ElemValue> {
        DValue::into_elem(self)
    }

    fn tuple(parts: Vec<DValue>) -> DValue {
        DValue::tuple(parts)
    }

    fn proj(self, i: usize) -> Result<DValue> {
        DValue::proj(self, i)
    }
}

impl DValue {
    /// A tuple value, normalised like `Value::tuple`: a tuple of elements is an element.
    pub fn tuple(parts: Vec<DValue>) -> DValue {
        if !parts.iter().all(|p| matches!(p, DValue::Elem(_))) {
            return DValue::Tuple(parts);
        }
        let elems = parts.into_iter().filter_map(|p| if let DValue::Elem(e) = p { Some(e) } else { None });
        DValue::Elem(ElemValue::Tuple(elems.collect()))
    }

    pub fn proj(self, i: usize) -> Result<DValue> {
        match self {
            DValue::Elem(ElemValue::Tuple(mut parts)) if i < parts.len() => Ok(DValue::Elem(parts.swap_remove(i))),
            DValue::Tuple(mut parts) if i < parts.len() => Ok(parts.swap_remove(i)),
            other => Err(ill_typed(format!("field {i} of {other:?}"))),
        }
    }

    pub fn into_elem(self) -> Result<ElemValue> {
        match self {
            DValue::Elem(e) => Ok(e),
            other => Err(ill_typed(format!("{other:?} where an element was expected"))),
        }
    }

    pub fn into_array(self) -> Result<DArray> {
        match self {
            DValue::Array(a) => Ok(a),
            other => Err(ill_typed(format!("{other:?} where an array was expected"))),
        }
    }

    pub fn into_segments(self) -> Result<DSegments> {
        match self {
            DValue::Segments(s) => Ok(s),
            other => Err(ill_typed(format!("{other:?} where segments were expected"))),
        }
    }
}

/// An internal inconsistency between the IR and the values (a bug in accel, never user error).
pub(crate) fn ill_typed(what: String) -> Error {
    Error::backend("cuda", "executing a program", format!("ill-typed: {what}"))
}

/// Appends the kernel words of `v` (see `accel_core::kernel`).
pub fn words(v: &DValue, out: &mut Vec<u64>) {
    match v {
        DValue::Elem(e) => elem_words(e, out),
        DValue::Array(a) => array_words(a, out),
        DValue::Segments(s) => segment_words(s, out),
        DValue::Nested { segments, values } => {
            segment_words(segments, out);
            array_words(values, out);
        }
        DValue::Tuple(parts) => parts.iter().for_each(|p| words(p, out)),
    }
}

pub fn elem_words(e: &ElemValue, out: &mut Vec<u64>) {
    match e {
        ElemValue::Scalar(s) => out.push(scalar_word(*s)),
        ElemValue::Tuple(parts) => parts.iter().for_each(|p| elem_words(p, out)),
    }
}

/// The words of an array: its shape, then its columns' addresses. Each column is a whole device
/// allocation, so its address is aligned as kernels assume (`accel_kernels::abi::COLUMN_ALIGN`).
pub fn array_words(a: &DArray, out: &mut Vec<u64>) {
    out.extend(a.shape.iter().map(|&d| d as u64));
    out.extend(a.columns.iter().map(|c| {
        debug_assert_eq!(c.ptr() % accel_kernels::abi::COLUMN_ALIGN as u64, 0, "a column at an unaligned address");
        c.ptr()
    }));
}

fn segment_words(s: &DSegments, out: &mut Vec<u64>) {
    out.extend([s.count as u64, s.total as u64, s.offsets.ptr()]);
}

fn scalar_word(s: ScalarValue) -> u64 {
    match s {
        ScalarValue::Bool(x) => x.to_word(),
        ScalarValue::I8(x) => x.to_word(),
        ScalarValue::I16(x) => x.to_word(),
        ScalarValue::I32(x) => x.to_word(),
        ScalarValue::I64(x) => x.to_word(),
        ScalarValue::U8(x) => x.to_word(),
        ScalarValue::U16(x) => x.to_word(),
        ScalarValue::U32(x) => x.to_word(),
        ScalarValue::U64(x) => x.to_word(),
        ScalarValue::Usize(x) => x.to_word(),
        ScalarValue::F32(x) => x.to_word(),
        ScalarValue::F64(x) => x.to_word(),
    }
}

/// The bytes of one element of each leaf column.
pub(crate) fn scalar_bytes(s: ScalarValue) -> Vec<u8> {
    match s {
        ScalarValue::Bool(x) => vec![u8::from(x)],
        ScalarValue::I8(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::I16(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::I32(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::I64(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::U8(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::U16(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::U32(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::U64(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::Usize(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::F32(x) => x.to_ne_bytes().to_vec(),
        ScalarValue::F64(x) => x.to_ne_bytes().to_vec(),
    }
}

fn scalar_from_bytes(t: accel_core::types::ScalarType, b: &[u8]) -> ScalarValue {
    use accel_core::types::ScalarType as S;
    let word = b.iter().rev().fold(0u64, |w, &x| (w << 8) | u64::from(x));
    match t {
        S::Bool => ScalarValue::Bool(word != 0),
        S::I8 => ScalarValue::I8(Word::from_word(word)),
        S::I16 => ScalarValue::I16(Word::from_word(word)),
        S::I32 => ScalarValue::I32(Word::from_word(word)),
        S::I64 => ScalarValue::I64(Word::from_word(word)),
        S::U8 => ScalarValue::U8(Word::from_word(word)),
        S::U16 => ScalarValue::U16(Word::from_word(word)),
        S::U32 => ScalarValue::U32(Word::from_word(word)),
        S::U64 => ScalarValue::U64(Word::from_word(word)),
        S::Usize => ScalarValue::Usize(Word::from_word(word)),
        S::F32 => ScalarValue::F32(Word::from_word(word)),
        S::F64 => ScalarValue::F64(Word::from_word(word)),
    }
}

/// An element of type `t` from its leaves in order.
fn assemble(t: &ElemType, leaves: &mut impl Iterator<Item = ScalarValue>) -> ElemValue {
    match t {
        ElemType::Scalar(_) => ElemValue::Scalar(leaves.next().expect("one leaf per scalar")),
        ElemType::Tuple(parts) => ElemValue::Tuple(parts.iter().map(|p| assemble(p, leaves)).collect()),
    }
}

/// A host value a GPU program can take as an argument.
pub trait IntoDevice {
    /// The value on `gpu`; arrays keep their device copy, so passing one again does not copy it.
    fn to_device(&self, gpu: &Gpu) -> Result<DValue>;
}

/// A host value a GPU program can return.
pub trait FromDevice: Sized {
    /// Arrays stay on the device until the host reads them.
    fn from_device(v: DValue) -> Result<Self>;
}

macro_rules! scalar_device {
    ($($t:ty),*) => {$(
        impl IntoDevice for $t {
            fn to_device(&self, _: &Gpu) -> Result<DValue> {
                Ok(DValue::Elem(Elem::to_value(*self)))
            }
        }

        impl FromDevice for $t {
            fn from_device(v: DValue) -> Result<Self> {
                <$t as FromValue>::from_value(Value::Elem(v.into_elem()?))
            }
        }
    )*};
}

scalar_device!(bool, i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64);

macro_rules! tuple_device {
    ($n:literal; $($T:ident $idx:tt),+) => {
        impl<$($T: IntoDevice),+> IntoDevice for ($($T,)+) {
            fn to_device(&self, gpu: &Gpu) -> Result<DValue> {
                Ok(DValue::tuple(vec![$(self.$idx.to_device(gpu)?),+]))
            }
        }

        impl<$($T: FromDevice),+> FromDevice for ($($T,)+) {
            fn from_device(v: DValue) -> Result<Self> {
                let parts: Vec<DValue> = match v {
                    DValue::Tuple(parts) => parts,
                    DValue::Elem(ElemValue::Tuple(parts)) => parts.into_iter().map(DValue::Elem).collect(),
                    other => return Err(ill_typed(format!("{other:?} where a tuple was expected"))),
                };
                if parts.len() != $n {
                    return Err(ill_typed(format!("a tuple of {} where {} were expected", parts.len(), $n)));
                }
                let mut parts = parts.into_iter();
                Ok(($($T::from_device(parts.next().unwrap_or_else(|| unreachable!("{}", $idx)))?,)+))
            }
        }
    };
}

tuple_device!(2; A 0, B 1);
tuple_device!(3; A 0, B 1, C 2);
tuple_device!(4; A 0, B 1, C 2, D 3);
tuple_device!(5; A 0, B 1, C 2, D 3, F 4);
tuple_device!(6; A 0, B 1, C 2, D 3, F 4, G 5);

impl<E: Elem, const R: usize> IntoDevice for Array<E, R> {
    fn to_device(&self, gpu: &Gpu) -> Result<DValue> {
        if let Some(d) = self.device_copy()
            && d.columns.first().is_none_or(|c| c.belongs_to(gpu))
        {
            return Ok(DValue::Array(d.clone()));
        }
        let d = DArray::upload::<E>(gpu, &self.shape(), self.columns())?;
        self.keep_device_copy(d.clone());
        Ok(DValue::Array(d))
    }
}

impl<E: Elem, const R: usize> FromDevice for Array<E, R> {
    fn from_device(v: DValue) -> Result<Self> {
        let d = v.into_array()?;
        let shape: [usize; R] = d
            .shape
            .as_slice()
            .try_into()
            .map_err(|_| ill_typed(format!("a rank-{} result where rank {R} was expected", d.shape.len())))?;
        if d.elem != E::elem_type() {
            return Err(ill_typed(format!("a `{}` result where `{}` was expected", d.elem, E::elem_type())));
        }
        Ok(Array::from_device(shape, d))
    }
}

impl IntoDevice for Segments {
    fn to_device(&self, gpu: &Gpu) -> Result<DValue> {
        Ok(DValue::Segments(DSegments::of(gpu, self)?))
    }
}

impl FromDevice for Segments {
    fn from_device(v: DValue) -> Result<Self> {
        v.into_segments()?.download()
    }
}

impl<E: Elem> IntoDevice for Nested<E> {
    fn to_device(&self, gpu: &Gpu) -> Result<DValue> {
        let segments = DSegments::of(gpu, self.segments())?;
        let values = self.values().to_device(gpu)?.into_array()?;
        Ok(DValue::Nested { segments, values })
    }
}

impl<E: Elem> FromDevice for Nested<E> {
    fn from_device(v: DValue) -> Result<Self> {
        let DValue::Nested { segments, values } = v else {
            return Err(ill_typed(format!("{v:?} where a nested array was expected")));
        };
        Nested::from_segments(segments.download()?, Array::from_device([values.len()], values))
    }
}
