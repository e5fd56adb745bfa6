/// Who queues, as the fluid model sees a scenario's groups: one crowd, whose members may give
/// up (`patience`), come back (`comeback`) or never use their turn (`noShow`). The model has
/// one crowd, so the groups must agree on patience and comebacks; a no-show is drawn for each
/// visitor apart from everything else, so the groups' no-show shares pool into one, weighted
/// by the groups' weights.
///
/// `validate`'s estimate (`FluidEstimate.withPatience`) and the sweep's oracle
/// (`TheoryOracle`) both build the model from it, with `FluidQueue.leaving(_:turns:maxWait:)`.
package struct FluidCrowd: Sendable, Equatable {
    package var patience: DurationDistribution?
    package var comeback: ComebackBehaviour?
    /// The share of first attempts that leave as soon as they have a queue number (0...1).
    package var noShow: Double

    package init(patience: DurationDistribution? = nil, comeback: ComebackBehaviour? = nil, noShow: Double = 0) {
        self.patience = patience
        self.comeback = comeback
        self.noShow = noShow
    }

    /// The scenario's crowd; nil when its groups differ in patience or comebacks, or it has
    /// none.
    package init?(groups: [VisitorGroup]) {
        guard let first = groups.first,
            groups.allSatisfy({
                $0.behaviour.patience == first.behaviour.patience && $0.behaviour.comeback == first.behaviour.comeback
            })
        else { return nil }
        let weights = groups.reduce(0) { $0 + $1.weight }
        let noShow =
            weights > 0 ? groups.reduce(0) { $0 + $1.weight * ($1.behaviour.noShow ?? 0) } / weights : 0
        self.init(patience: first.behaviour.patience, comeback: first.behaviour.comeback, noShow: noShow)
    }

    /// Whether anyone leaves the queue before its turn: then the waits of a queue where
    /// everyone stays (`FluidWaits`) do not apply, and the model with abandonment does.
    package var leaves: Bool { patience != nil || noShow > 0 }

    /// `patience exponential, mean 10m`, `no-shows 5%`, with the comebacks when any: what
    /// `validate` names as the estimate's condition.
    package var summary: String {
        var parts: [String] = []
        if let patience { parts.append("patience \(patience.summary)") }
        if let comeback, comeback.share > 0, patience != nil { parts.append("comebacks \(comeback.summary)") }
        if noShow > 0 { parts.append("no-shows \(PercentText.of(noShow))") }
        return parts.joined(separator: ", ")
    }
}

extension FluidQueue {
    /// The one fluid model with visitors who leave: this queue's arrivals and outflow, the
    /// crowd's patience, comebacks and no-shows, and the room's rule for the turn of a visitor
    /// who left.
    package func leaving(_ crowd: FluidCrowd, turns: AbandonedTurns, maxWait: Double) -> AbandonmentFluid {
        var model = AbandonmentFluid(
            fluid: self, patience: crowd.patience, comeback: crowd.comeback, turns: turns, maxWait: maxWait)
        model.noShow = crowd.noShow
        return model
    }
}
