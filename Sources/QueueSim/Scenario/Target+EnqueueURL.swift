/// The enqueue URL the client calls for a target, as the Queue-it SDK builds it, for summaries
/// (`queuesim validate`). The client core builds its own; this one only describes.
extension Target {
    public var enqueueURLDescription: String {
        let path = "api/mobileapp/queue/\(customerId)/\(waitingRoomId)/enqueue"
        guard let domain = waitingRoomDomain, !domain.isEmpty else {
            return "https://\(customerId).queue-it.net/\(path)"
        }
        // The iOS SDK trims every leading and trailing `/` and space from the prefix.
        let prefix = (queuePathPrefix ?? "").trimmingCharacters(in: "/ ")
        return prefix.isEmpty ? "https://\(domain)/\(path)" : "https://\(domain)/\(prefix)/\(path)"
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) })
        else {
            return ""
        }
        return String(self[first...last])
    }
}
