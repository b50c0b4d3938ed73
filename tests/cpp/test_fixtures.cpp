// PyTorch parity: every golden file in tests/fixtures (written by scripts/make_fixtures.py from
// torch.nn.MultiheadAttention) must be reproduced within 1e-5.
#include <doctest/doctest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mha/config_json.hpp"
#include "mha/forward.hpp"
#include "reference.hpp"

namespace {

std::vector<std::string> fixture_files() {
    std::vector<std::string> files;
    if (DIR* dir = opendir(MHA_FIXTURES_DIR)) {
        while (dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
                files.push_back(std::string(MHA_FIXTURES_DIR) + "/" + name);
        }
        closedir(dir);
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST_CASE("every PyTorch fixture is reproduced within 1e-5") {
    const auto files = fixture_files();
    REQUIRE(files.size() >= 13);
    for (const auto& file : files) {
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        const auto fixture = nlohmann::json::parse(text.str());
        const std::string name = fixture.at("name");
        INFO("fixture " << name);

        const mha::Trace trace = mha::forward(mha::config_from_json(fixture.at("config").dump()));
        for (const char* id : {"q", "scores", "weights", "output"}) {
            const auto& expected = fixture.at("expected").at(id);
            const auto& step = trace.step(id);
            CHECK(step.shape == expected.at("shape").get<std::vector<std::size_t>>());
            const auto diff = ref::compare(step.data, expected.at("data").get<std::vector<float>>(), 1e-5);
            INFO(std::string(id) << ": max |diff| " << diff.max_abs << ", first index over 1e-5: " << diff.first_bad);
            CHECK(diff.first_bad == -1);
        }
        CHECK(trace.warnings.empty());
    }
}
