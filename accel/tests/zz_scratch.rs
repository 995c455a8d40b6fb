use accel::prelude::*;

#[accel]
fn last_wins(xs: Vector<i64>, defaults: Vector<i64>) -> Vector<i64> {
    xs.permute(defaults, |i| 0, |new, old| new)
}

#[test]
fn repro() {
    let rt = Runtime::cpu();
    for n in [32767usize, 32768, 100_000] {
        let xs = Vector::from_vec((0..n as i64).collect());
        let d = Vector::from_vec(vec![-1i64]);
        println!("n={n}: cpu {:?} ref {:?}", last_wins(&rt, &xs, &d).unwrap().to_vec(), last_wins::reference(&xs, &d).unwrap().to_vec());
    }
}
