// What Alamofire's RetryPolicy.swift has that RetryPolicy.swift (whose retry decision is kept
// apart) does not: the parameterised `.connectionLostRetryPolicy(…)`.

extension RequestInterceptor where Self == ConnectionLostRetryPolicy {
    /// A ``ConnectionLostRetryPolicy`` with these settings.
    public static func connectionLostRetryPolicy(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods
    ) -> ConnectionLostRetryPolicy {
        ConnectionLostRetryPolicy(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
            exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods)
    }
}
