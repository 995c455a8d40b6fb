use accel::prelude::*;

// A function that a macro writes: the GPU build, which reads source files, would not see it (see
// accel-macros' tests); without the `cuda` feature it compiles and runs like any other.
macro_rules! doubling {
    ($name:ident) => {
        #[accel]
        fn $name(xs: Vector<f32>) -> Vector<f32> {
            xs.map(|x| x * 2.0)
        }
    };
}

doubling!(double);

fn main() {
    let rt = Runtime::cpu();
    let _ = double(&rt, &Vector::from_vec(vec![1.0f32]));
}
