// The empty kernel whose round trip calibrates launch overhead at open.

@compute @workgroup_size(1)
fn noop() {
}
