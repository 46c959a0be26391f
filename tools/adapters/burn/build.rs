//! Reads burn-tensor's and burn-ndarray's versions from Cargo.lock (the
//! ones the adapter is built with, --locked) into BURN_VERSION and
//! BURN_NDARRAY_VERSION, for the hello answer.
use std::fs;
use std::path::Path;

/// The version of package name in the lock file's text.
fn locked_version(text: &str, name: &str) -> Option<String> {
    let mut lines = text.lines();
    let want = format!("name = \"{name}\"");
    while let Some(l) = lines.next() {
        if l.trim() == want {
            return lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = \""))
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
        }
    }
    None
}

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let lock = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).expect("Cargo.lock next to Cargo.toml");
    let tensor = locked_version(&text, "burn-tensor").expect("burn-tensor in Cargo.lock");
    let ndarray = locked_version(&text, "burn-ndarray").expect("burn-ndarray in Cargo.lock");
    println!("cargo:rustc-env=BURN_VERSION={tensor}");
    println!("cargo:rustc-env=BURN_NDARRAY_VERSION={ndarray}");
}
