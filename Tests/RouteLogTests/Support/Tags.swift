import Testing

extension Tag {
    /// Suites that kill processes, replay crash states, inject faults or flip bits over
    /// whole stores, and any other suite that takes more than about ten seconds: `make
    /// test-fast` skips them (the Makefile's SLOW_SUITES lists them, and
    /// SlowSuiteListTests checks that the list and the tags agree). Tag suites, not
    /// single tests: the list names suites.
    @Tag static var slow: Tag
    /// Suites that read RouteLog's output with an independent reader (Python packages,
    /// xmllint): they skip, saying so, when the reader is missing.
    @Tag static var externalReader: Tag
}
