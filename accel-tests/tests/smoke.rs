use accel::prelude::*;

#[accel]
pub fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
    xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
}

#[accel]
fn saxpy(a: f32, xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    let r = xs.zip_with(ys, |x, y| a * x + y);
    r
}

#[accel]
fn stats(xs: Vector<f64>) -> (Scalar<f64>, Vector<f64>) {
    let s = xs.sum();
    let n = xs.len() as f64;
    let m = xs.map(|x| x / s.get() * n);
    (s, m)
}

#[test]
fn smoke() -> accel::Result<()> {
    let rt = Runtime::cpu();
    let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
    let ys = Vector::from_vec(vec![4.0f32, 5.0, 6.0]);
    assert_eq!(dotp(&rt, &xs, &ys)?.get(), 32.0);
    assert_eq!(dotp::reference(&xs, &ys)?.get(), 32.0);
    assert_eq!(saxpy(&rt, 2.0, &xs, &ys)?.to_vec(), vec![6.0, 9.0, 12.0]);
    assert_eq!(saxpy::reference(2.0, &xs, &ys)?.to_vec(), vec![6.0, 9.0, 12.0]);
    let zs = Vector::from_vec(vec![1.0f64, 3.0]);
    let (s, m) = stats(&rt, &zs)?;
    assert_eq!(s.get(), 4.0);
    assert_eq!(m.to_vec(), vec![0.5, 1.5]);
    println!("{}", dotp::plan());
    Ok(())
}
