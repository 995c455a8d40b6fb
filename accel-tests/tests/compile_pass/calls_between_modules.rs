// `#[accel]` functions in two modules that call each other and a scalar helper: the calls are
// inlined at build time, the results are the interpreter's, and the plans show the callees fused.
use accel::prelude::*;

mod stats {
    use accel::prelude::*;

    /// A scalar helper, called from a closure in another module.
    #[accel]
    pub fn clamp_unit(x: f32) -> f32 {
        x.clamp(0.0, 1.0)
    }

    #[accel]
    pub fn squares(xs: Vector<f32>) -> Vector<f32> {
        xs.map(|x| x * x)
    }

    #[accel]
    pub fn mean_square(xs: Vector<f32>) -> Scalar<f32> {
        let n = xs.len() as f32;
        unit(squares(xs).sum().get() / n)
    }
}

mod shapes {
    use accel::prelude::*;

    /// A constant that `#[accel]` code names.
    pub const ONE: f32 = 1.0;

    #[accel]
    pub fn normalised(xs: Vector<f32>) -> Vector<f32> {
        let ms = super::stats::mean_square(xs);
        let over_rms = |x: f32| x / (ms.get().sqrt() * ONE);
        xs.map(|x| crate::stats::clamp_unit(over_rms(x)))
    }
}

fn main() {
    let rt = Runtime::cpu();
    let data = vec![0.5f32, -2.0, 3.0, 1.0, 0.0, 7.5, -0.25];
    let xs = Vector::from_vec(data.clone());
    let got = shapes::normalised(&rt, &xs).unwrap().to_vec();
    assert_eq!(got, shapes::normalised::reference(&xs).unwrap().to_vec());
    let ms = data.iter().map(|x| x * x).sum::<f32>() / data.len() as f32;
    for (g, x) in got.iter().zip(&data) {
        assert!((g - (x / ms.sqrt()).clamp(0.0, 1.0)).abs() < 1e-6, "{g} for {x}");
    }
    assert_eq!(stats::clamp_unit(1.5).unwrap(), 1.0);
    // `squares` fuses into the sum of `mean_square`; `normalised` adds one elementwise kernel.
    assert_eq!(stats::mean_square::plan().kernels().count(), 1);
    assert_eq!(shapes::normalised::plan().kernels().count(), 2);
}
