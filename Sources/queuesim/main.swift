import QueueSim

// Replaced by the ArgumentParser command tree.
print("queuesim \(QueueSimVersion.current)")
