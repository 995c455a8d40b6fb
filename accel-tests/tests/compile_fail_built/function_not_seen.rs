use accel::prelude::*;

// The build script reads source files: a function that a macro writes is not in them.
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
