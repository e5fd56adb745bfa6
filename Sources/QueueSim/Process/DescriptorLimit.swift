#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`): every connection is a descriptor, and a
/// run of device-true visitors opens thousands.
package enum DescriptorLimit {
    /// Raises the soft limit to the hard one (once, at start) and returns what it is then.
    @discardableResult
    package static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return clamp(limit.rlim_cur)
    }

    /// The most descriptors this process can have open once `raiseToHardLimit` has run: the
    /// hard limit (a preflight does not change the process's limits).
    package static func available() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return clamp(limit.rlim_max)
    }

    private static func clamp(_ value: rlim_t) -> Int {
        // RLIM_INFINITY is the largest value, so it clamps too.
        value > rlim_t(Int32.max) ? Int(Int32.max) : Int(value)
    }
}
