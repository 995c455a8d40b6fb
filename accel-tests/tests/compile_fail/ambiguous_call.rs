// two `#[accel]` functions of the name, neither in the caller's module
use accel::prelude::*;

mod a {
    use accel::prelude::*;

    #[accel]
    pub fn twice(xs: Vector<i32>) -> Vector<i32> {
        xs.map(|x| x * 2)
    }
}

mod b {
    use accel::prelude::*;

    #[accel]
    pub fn twice(xs: Vector<i32>) -> Vector<i32> {
        xs.map(|x| x + x)
    }
}

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    twice(xs)
}

fn main() {}
