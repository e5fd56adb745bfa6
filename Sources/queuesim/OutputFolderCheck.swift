import ArgumentParser
import QueueSim

extension RunCommand {
    /// The report folder checked before any work (`ReportFolder.checkWritable`, and for a
    /// command that reads folders `ReportFolder.checkNotAnInput`): the message on stderr, exit
    /// 2 for a folder the user must choose again, 3 for one the file system will not write.
    static func checkOutputFolder(_ pointer: String, inputs: [String] = [], command: String) throws {
        do {
            try ReportFolder.checkNotAnInput(pointer, inputs: inputs)
            try ReportFolder.checkWritable(pointer)
        } catch let failure as ReportFolder.Failure {
            StandardError.print("queuesim \(command): \(failure)")
            throw ExitCode(failure.isUsageError ? RunExitStatus.invalidInput.rawValue : RunExitStatus.aborted.rawValue)
        }
    }
}
