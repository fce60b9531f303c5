extension Request {
    /// A request's lifecycle state (§2.1 of the behaviour reference).
    public enum State: String, Hashable, Sendable {
        case initialized
        case resumed
        case suspended
        case cancelled
        case finished

        /// The transition table, written out in one place:
        /// - from `initialized`: anything;
        /// - to `initialized`: never; from `cancelled` or `finished`: never;
        /// - `resumed ⇄ suspended`, either to `cancelled` or `finished`; no state to itself.
        public func canTransitionTo(_ next: State) -> Bool {
            switch (self, next) {
            case (.initialized, _):
                return true
            case (_, .initialized), (.cancelled, _), (.finished, _):
                return false
            case (.resumed, .cancelled), (.suspended, .cancelled), (.resumed, .suspended), (.suspended, .resumed):
                return true
            case (.suspended, .suspended), (.resumed, .resumed):
                return false
            case (_, .finished):
                return true
            }
        }
    }
}
