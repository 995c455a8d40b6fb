use accel::prelude::*;

// A valid function in a package without a build script: without the `cuda` feature none is needed.
#[accel]
fn double(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * 2.0)
}

fn main() {
    let rt = Runtime::cpu();
    let _ = double(&rt, &Vector::from_vec(vec![1.0f32]));
}
