/// The queuesim release, printed by `--version` and written into `run.json`.
public enum QueueSimVersion {
    public static let current = "0.1.0"
}
