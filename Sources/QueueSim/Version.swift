/// The queuesim release, printed by `--version` and written into `run.json`.
package enum QueueSimVersion {
    package static let current = "0.1.0"
}
