// a body that ends with `;`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let ys = xs.map(|x| x + 1.0);
    ys;
}

fn main() {}
