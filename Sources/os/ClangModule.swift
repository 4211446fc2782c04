// This module is the Swift overlay of the Clang module `os` (Sources/COSLog), as Apple's `os` is: Swift
// resolves `import os.log` as the Clang submodule `os.log` and brings this overlay with it, so
// `import os`, `import os.log` and `#if canImport(os)` all give the names declared here.
@_exported import os
