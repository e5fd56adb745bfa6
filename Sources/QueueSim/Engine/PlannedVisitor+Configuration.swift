import QueueClientCore

extension PlannedVisitor {
    /// The visitor's configuration from one set of group templates (the run's own, or a loop's
    /// of its own): its group's on its platform, with its own user id, key, token and invite.
    func configuration(from templates: [[VisitorConfiguration]]) -> VisitorConfiguration {
        var configuration = templates[groupIndex][platformIndex].numbered(index)
        if let key = enqueueKey { configuration.enqueueKey = key }
        if let token = enqueueToken { configuration.enqueueToken = token }
        if let code = inviteCode { configuration.inviteCode = code }
        return configuration
    }
}
