/// The sports one kind of FIT message named, each once, in the order they first came:
/// all an import uses of them (the activity kind and the report's names), kept in at
/// most 256 bytes however many messages a file repeats them in.
struct FITSportList {
    /// Each sport once, first seen first.
    private(set) var inOrder: [UInt8] = []
    /// Which of the 256 values are in `inOrder`: bit `v % 64` of word `v / 64`.
    private var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    var isEmpty: Bool { inOrder.isEmpty }

    mutating func insert(_ sport: UInt8) {
        let bit = UInt64(1) << UInt64(sport % 64)
        switch sport / 64 {
        case 0: guard seen.0 & bit == 0 else { return }; seen.0 |= bit
        case 1: guard seen.1 & bit == 0 else { return }; seen.1 |= bit
        case 2: guard seen.2 & bit == 0 else { return }; seen.2 |= bit
        default: guard seen.3 & bit == 0 else { return }; seen.3 |= bit
        }
        inOrder.append(sport)
    }
}
