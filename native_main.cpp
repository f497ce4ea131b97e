// mpsport-native: the LibTorch half of mpsport, a separate executable so that `mpsport scan` never
// pays LibTorch's start-up (about 0.4 s of dynamic linking and operator registration).
//   mpsport-native doctor
//   mpsport-native step --model M --inputs I [--targets T] [--loss L] [--device D] [--steps N] --out TRACE
#include <cstring>
#include <iostream>
#include <string>

#include "auditor/native_step.hpp"
#include "core/paths.hpp"

int main(int argc, char** argv) {
    try {
        if (argc >= 2 && std::strcmp(argv[1], "doctor") == 0) {
            std::cout << mpsport::doctor_report();
            return 0;
        }
        if (argc >= 2 && std::strcmp(argv[1], "step") == 0) {
            mpsport::NativeStepOptions o;
            std::string out;
            for (int i = 2; i + 1 < argc; i += 2) {
                const std::string key = argv[i], value = argv[i + 1];
                if (key == "--model") o.model = value;
                else if (key == "--inputs") o.inputs = value;
                else if (key == "--targets") o.targets = value;
                else if (key == "--loss") o.loss = value;
                else if (key == "--device") o.device = value;
                else if (key == "--steps") o.steps = std::stoi(value);
                else if (key == "--out") out = value;
                else throw std::runtime_error("unknown option " + key);
            }
            if (o.model.empty() || o.inputs.empty() || out.empty()) throw std::runtime_error("step needs --model, --inputs and --out");
            mpsport::write_file_atomically(out, mpsport::run_native_step(o).dump(1) + "\n");
            return 0;
        }
        std::cerr << "usage: mpsport-native doctor | step --model M --inputs I [--targets T] [--loss mse|cross_entropy] "
                     "[--device D] [--steps N] --out TRACE\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "mpsport-native: " << e.what() << "\n";
        return 2;
    }
}
