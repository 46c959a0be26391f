//! Reads candle-core's version from Cargo.lock (the one the adapter is
//! built with, --locked) into CANDLE_VERSION, for the hello answer.
use std::fs;
use std::path::Path;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let lock = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).expect("Cargo.lock next to Cargo.toml");
    let mut lines = text.lines();
    let mut version = None;
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"candle-core\"" {
            version = lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = \""))
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
            break;
        }
    }
    let version = version.expect("candle-core in Cargo.lock");
    println!("cargo:rustc-env=CANDLE_VERSION={version}");
}
