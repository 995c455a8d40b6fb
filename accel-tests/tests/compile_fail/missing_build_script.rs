use accel::prelude::*;

// A valid function in a package without the build script that compiles it for the GPU.
#[accel]
fn double(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * 2.0)
}

fn main() {
    let rt = Runtime::cpu();
    let _ = double(&rt, &Vector::from_vec(vec![1.0f32]));
}
