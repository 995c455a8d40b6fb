// `#[accel]` on an associated function
use accel::prelude::*;

struct Model;

impl Model {
    #[accel]
    fn scale(xs: Vector<f32>) -> Vector<f32> {
        xs.map(|x| x * 2.0)
    }
}

fn main() {}
