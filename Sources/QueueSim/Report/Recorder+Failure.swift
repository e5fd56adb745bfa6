extension Recorder {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The runner recorded the same visitor twice.
        case duplicateVisitor(index: Int)
        case negativeVisitorIndex(Int)
        /// A sharded run recorded a visitor its shard does not own.
        case visitorOfAnotherShard(index: Int)
        /// Visitors below the highest recorded index never got a row. Nothing was written; the
        /// rows recorded so far are still in `spoolPath`.
        case unrecordedVisitors(count: Int, firstIndex: Int, spoolPath: String)
        case alreadyFinished

        package var description: String {
            switch self {
            case .duplicateVisitor(let index): "visitor \(index + 1) was recorded twice"
            case .negativeVisitorIndex(let index): "visitor index \(index) is negative"
            case .visitorOfAnotherShard(let index): "visitor \(index + 1) belongs to another shard"
            case .unrecordedVisitors(let count, let first, let spool):
                "\(count) visitor(s) never recorded, the first is visitor \(first + 1); rows so far are in \(spool)"
            case .alreadyFinished: "the recorder already wrote its reports"
            }
        }
    }
}
