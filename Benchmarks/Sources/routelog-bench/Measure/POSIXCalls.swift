import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The C calls the engines make, under names no engine method shadows (an engine's own
// `close()` hides the C one inside the class). File-scope names that Linux and Darwin
// both have, so the benchmark needs no module-qualified call.

func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }

@discardableResult
func posixClose(_ fd: Int32) -> Int32 { close(fd) }

func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }

/// uname(2)'s fields, or nil when the call fails.
func posixUname() -> utsname? {
    var names = utsname()
    return uname(&names) == 0 ? names : nil
}
