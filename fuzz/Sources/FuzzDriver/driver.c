// SwiftPM on Linux links every executable with `--defsym main=<Module>_main` (it renames the
// entry point so tests can link executables), but a libFuzzer target has no entry point of
// its own: libFuzzer's `main` is meant to be used. So each target's `<Module>_main` is defined
// here and hands over to libFuzzer's driver with the target's `LLVMFuzzerTestOneInput`.
// With `main` defined this way, the archive member holding libFuzzer's `main` is never pulled in.
#include <stddef.h>
#include <stdint.h>

#include "FuzzDriver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int queuesim_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

int ScenarioFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int RoomRequestFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int URLFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int TokenCheckFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int FlatJSONFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int CSVFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int HTTP1ResponseFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int PushFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int RunFolderFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
int ShardFolderFuzz_main(int argc, char **argv) { return queuesim_fuzz_main(argc, argv); }
