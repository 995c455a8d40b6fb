fn main() {
    accel_build::build();
}
