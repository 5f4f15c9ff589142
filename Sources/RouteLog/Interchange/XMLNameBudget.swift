/// Counts the distinct element, attribute and namespace names a document uses, to stop
/// one that uses more than ``ImportLimits/xmlNames``.
///
/// libxml2 keeps every name it meets in a table whose buckets stop growing at 16,384
/// (libxml2 2.9's dictionary), so a file of a few hundred thousand different names (in
/// an extension RouteLog skips) costs time quadratic in them: 800,000 took 24 s of CPU,
/// all in xmlDictLookup. GPX and TCX use a few dozen names; past ten thousand the file
/// is refused while the table is still fast.
struct XMLNameBudget {
    let limit: Int
    private var seen: Set<String> = []

    init(limit: Int) { self.limit = limit }

    /// Notes the names of one start tag; false once more than `limit` different names
    /// have been seen.
    mutating func admit(_ qualifiedName: String?, _ name: String, uri: String?, attributes: [String: String]) -> Bool {
        seen.insert(qualifiedName ?? name)
        if let uri, !uri.isEmpty { seen.insert(uri) }
        for key in attributes.keys { seen.insert(key) }
        return seen.count <= limit
    }

    /// Why the file was refused, for a message.
    var refusal: String {
        "the file uses more than \(ImportLimits.grouped(limit)) different element, attribute and namespace names "
            + "(ImportLimits.xmlNames), where GPX and TCX use a few dozen"
    }
}
