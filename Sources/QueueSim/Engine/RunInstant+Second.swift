import QueueClientCore

extension RunInstant {
    /// The whole second of the run this instant falls in (0 for the origin and before): where
    /// the engine counts a request or an answer, and the timeline's row for it.
    var secondOfRun: Int {
        wholeNanoseconds <= 0 ? 0 : Int(wholeSecondsSinceOrigin)
    }
}
