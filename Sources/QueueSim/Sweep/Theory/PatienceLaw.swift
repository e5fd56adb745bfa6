import Foundation

/// A patience (or comeback delay) as the fluid oracles need it: its survival F̄(w) =
/// P(patience > w) and its quantiles, in seconds. The distributions are the scenario's own
/// (`DurationDistribution`), so the oracles and the engine draw from the same law.
extension DurationDistribution {
    /// P(a draw > `seconds`).
    package func survival(_ seconds: Double) -> Double {
        if seconds < 0 { return 1 }
        switch self {
        case .fixed(let value):
            return value.secondsDouble > seconds ? 1 : 0
        case .exponential(let mean):
            let theta = mean.secondsDouble
            return theta > 0 ? exp(-seconds / theta) : 0
        case .lognormal(let median, let sigma):
            guard seconds > 0 else { return 1 }
            let center = log(max(median.secondsDouble, 1e-12))
            guard sigma > 0 else { return exp(center) > seconds ? 1 : 0 }
            return 0.5 * erfc((log(seconds) - center) / (sigma * 2.0.squareRoot()))
        case .samples(let values):
            guard !values.isEmpty else { return 0 }
            return Double(values.count { $0.secondsDouble > seconds }) / Double(values.count)
        }
    }

    /// The draw that a share `q` (0 < q < 1) of draws do not exceed.
    package func quantile(_ q: Double) -> Double {
        switch self {
        case .fixed(let value):
            return value.secondsDouble
        case .exponential(let mean):
            return -log(1 - q) * mean.secondsDouble
        case .lognormal(let median, let sigma):
            return median.secondsDouble * exp(sigma * Self.standardNormalQuantile(q))
        case .samples(let values):
            let sorted = values.map(\.secondsDouble).sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]
        }
    }

    /// Φ⁻¹(q) by Acklam's rational approximation (relative error below 1.2e-9): enough for
    /// placing a comeback delay's quantile points.
    static func standardNormalQuantile(_ q: Double) -> Double {
        let a = [
            -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690, -30.66479806614716,
            2.506628277459239,
        ]
        let b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
        let c = [
            -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
            4.374664141464968, 2.938163982698783,
        ]
        let d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
        let low = 0.02425
        func tail(_ p: Double) -> Double {
            let s = (-2 * log(p)).squareRoot()
            return (((((c[0] * s + c[1]) * s + c[2]) * s + c[3]) * s + c[4]) * s + c[5])
                / ((((d[0] * s + d[1]) * s + d[2]) * s + d[3]) * s + 1)
        }
        if q < low { return tail(q) }
        if q > 1 - low { return -tail(1 - q) }
        let u = q - 0.5
        let r = u * u
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
