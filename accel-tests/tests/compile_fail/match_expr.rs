// `match`: use `if`/`else`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| match x > 0.0 {
        true => x,
        false => 0.0,
    })
}

fn main() {}
