extension Request {
    /// A request's public lifecycle state (docs/client.md, "Requests, retry, interceptors"); `RequestLifecycle`
    /// keeps it together with where the current attempt stands.
    public enum State: String, Hashable, Sendable {
        /// Created, not resumed yet.
        case initialized
        /// Resumed: set up, running or retrying.
        case resumed
        /// Suspended (its task too).
        case suspended
        /// Cancelled; the request still finishes (as `explicitlyCancelled`).
        case cancelled
        /// Finished, with every response handler called.
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
