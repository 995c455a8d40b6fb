// rustc's exhaustiveness check does not run inside #[accel]: the last arm must match everything
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| match x {
        0 => 1,
        n if n > 0 => 2,
    })
}

fn main() {}
