import Foundation

/// CPU time (user + system) of this process so far, in seconds, and the cores it may run on.
enum ProcessCPUTime {
    /// Cores in the process's affinity mask (`taskset`), which NIO's `System.coreCount` does
    /// not look at: two loops pinned to one core only take turns.
    static func usableCores() -> Int? {
        // `sched_getaffinity` needs _GNU_SOURCE, which Swift's Glibc module does not set; the
        // kernel prints the same mask as a list such as `0-1` or `1,3`.
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        var count = 0
        for part in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = part.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            if bounds.count == 1 { count += 1 }
            if bounds.count == 2, bounds[1] >= bounds[0] { count += bounds[1] - bounds[0] + 1 }
        }
        return count > 0 ? count : nil
    }

    static func now() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
