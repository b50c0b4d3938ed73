#pragma once
// The PyTorch golden files (tests/fixtures/*.json), parsed, for the tests of the tiled and
// incremental algorithms: each fixture's config and what PyTorch computed from it.

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "mha/config_json.hpp"

struct Fixture {
    std::string name;
    mha::Config config;
    nlohmann::json expected;  // {q, scores, weights, output}: {shape, data}
};

inline std::vector<Fixture> load_fixtures() {
    std::vector<std::string> files;
    if (DIR* dir = opendir(MHA_FIXTURES_DIR)) {
        while (dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) files.push_back(std::string(MHA_FIXTURES_DIR) + "/" + name);
        }
        closedir(dir);
    }
    std::sort(files.begin(), files.end());
    std::vector<Fixture> fixtures;
    for (const std::string& file : files) {
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        const auto json = nlohmann::json::parse(text.str());
        fixtures.push_back({json.at("name"), mha::config_from_json(json.at("config").dump()), json.at("expected")});
    }
    return fixtures;
}

inline std::vector<float> expected_data(const Fixture& f, const char* id) { return f.expected.at(id).at("data").get<std::vector<float>>(); }
