fn main() {
    let _ = leaseq::Item::new(b"x".to_vec());
}
