/// A file system that passes every call to `base` except those it implements itself:
/// the writer's ``StoreDirectoryGuard`` writes only the calls it checks, a test's fault
/// injector only the calls it changes.
protocol ForwardingFileSystem: FileSystem {
    var base: any FileSystem { get }
}

extension ForwardingFileSystem {
    func open(_ path: String, flags: Int32, mode: UInt32) throws -> FileRef { try base.open(path, flags: flags, mode: mode) }
    func close(_ file: FileRef) { base.close(file) }
    func pread(_ file: FileRef, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.pread(file, buffer, at: offset)
    }
    func pwrite(_ file: FileRef, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try base.pwrite(file, buffer, at: offset)
    }
    func size(_ file: FileRef) throws -> Int64 { try base.size(file) }
    func truncate(_ file: FileRef, to length: Int64) throws { try base.truncate(file, to: length) }
    func syncData(_ file: FileRef) throws { try base.syncData(file) }
    func syncBarrier(_ file: FileRef) throws { try base.syncBarrier(file) }
    func syncAll(_ file: FileRef) throws { try base.syncAll(file) }
    func rename(_ from: String, to: String) throws { try base.rename(from, to: to) }
    func renameExclusive(_ from: String, to: String) throws { try base.renameExclusive(from, to: to) }
    func exchange(_ a: String, with b: String) throws { try base.exchange(a, with: b) }
    func unlink(_ path: String) throws { try base.unlink(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    func listDirectory(_ path: String) throws -> [String] { try base.listDirectory(path) }
    func isDirectory(_ path: String) -> Bool? { base.isDirectory(path) }
    func lockExclusive(_ file: FileRef) throws { try base.lockExclusive(file) }
    func unlock(_ file: FileRef) { base.unlock(file) }
    func isLockHeld(_ file: FileRef) throws -> Bool { try base.isLockHeld(file) }
    func fileType(_ file: FileRef) throws -> FileType { try base.fileType(file) }
    func linkCount(_ file: FileRef) throws -> Int { try base.linkCount(file) }
    func isSymbolicLink(_ path: String) -> Bool? { base.isSymbolicLink(path) }
    func sizeOfName(_ path: String) -> Int64? { base.sizeOfName(path) }
    func identityOfName(_ path: String) -> FileIdentity? { base.identityOfName(path) }
    func identity(_ file: FileRef) -> FileIdentity? { base.identity(file) }
    func birth(_ file: FileRef) -> FileBirth? { base.birth(file) }
    func birthOfName(_ path: String) -> FileBirth? { base.birthOfName(path) }
    func lockDirectory(_ directory: FileRef) throws { try base.lockDirectory(directory) }
    func unlockDirectory(_ directory: FileRef) { base.unlockDirectory(directory) }
    func openDirectory(_ name: String, in parent: DirectoryRef?, flags: Int32) throws -> DirectoryRef {
        try base.openDirectory(name, in: parent, flags: flags)
    }
    func closeDirectory(_ directory: DirectoryRef) { base.closeDirectory(directory) }
    func open(_ name: String, in directory: DirectoryRef, flags: Int32, mode: UInt32) throws -> FileRef {
        try base.open(name, in: directory, flags: flags, mode: mode)
    }
    func makeDirectory(_ name: String, in directory: DirectoryRef) throws { try base.makeDirectory(name, in: directory) }
    func rename(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try base.rename(name, in: source, to: target, in: destination)
    }
    func renameExclusive(_ name: String, in source: DirectoryRef, to target: String, in destination: DirectoryRef) throws {
        try base.renameExclusive(name, in: source, to: target, in: destination)
    }
    func unlink(_ name: String, in directory: DirectoryRef) throws { try base.unlink(name, in: directory) }
    func listDirectory(_ directory: DirectoryRef) throws -> [String] { try base.listDirectory(directory) }
    func syncDirectory(_ directory: DirectoryRef) throws { try base.syncDirectory(directory) }
    func identityOfName(_ name: String, in directory: DirectoryRef) -> FileIdentity? {
        base.identityOfName(name, in: directory)
    }
    func identity(_ directory: DirectoryRef) -> FileIdentity? { base.identity(directory) }
    func typeOfName(_ name: String, in directory: DirectoryRef) -> FileType? { base.typeOfName(name, in: directory) }
    func sizeOfName(_ name: String, in directory: DirectoryRef) -> Int64? { base.sizeOfName(name, in: directory) }
}
