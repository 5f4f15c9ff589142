/// A summary is identified by its route's id, so a SwiftUI `List` or `ForEach` takes an
/// array of summaries directly and keeps a row's identity across edits.
extension RouteSummary: Identifiable {}
