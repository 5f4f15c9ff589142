// Plain names for the libc calls whose Swift names clash with FileSystem's methods.
import CRouteLogSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@inline(__always) func Glibc_open(_ path: String, _ flags: Int32, _ mode: UInt32) -> Int32 {
    open(path, flags, mode_t(mode))
}
@inline(__always) func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) func systemPread(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int, _ off: off_t) -> Int {
    pread(fd, buf, n, off)
}
@inline(__always) func systemPwrite(_ fd: Int32, _ buf: UnsafeRawPointer?, _ n: Int, _ off: off_t) -> Int {
    pwrite(fd, buf, n, off)
}
@inline(__always) func systemRename(_ a: String, _ b: String) -> Int32 { rename(a, b) }
@inline(__always) func systemUnlink(_ path: String) -> Int32 { unlink(path) }
