// `warplab configs`: the timing model's GPU presets.
//   warplab configs                     name and description of every preset
//   warplab configs show NAME|FILE      every field with its value, unit and description
//   warplab configs --from-gpu OUT.toml a preset derived from the GPU in this machine
#include <fstream>
#include <iostream>
#include <memory>

#include "gpu/backend.h"
#include "lab/presets.h"
#include "sim/timing/config.h"
#include "ui/cli/commands.h"

namespace warplab::cli {
namespace {

struct ConfigsArgs {
  std::string show_name;
  std::string from_gpu;
  CLI::App* show = nullptr;
};

int list() {
  const std::string dir = lab::config_dir();
  if (dir.empty())
    return report_error(Error{"", 0, "no preset directory found (set WARPLAB_CONFIG_DIR)"});
  auto configs = timing::list_configs(dir);
  size_t w = 0;
  for (const auto& c : configs) w = std::max(w, c.name.size());
  for (const auto& c : configs)
    std::cout << c.name << std::string(w + 2 - c.name.size(), ' ') << c.description << "\n";
  std::cout << "(" << dir << "; `warplab configs show NAME` lists every field)\n";
  return kExitOk;
}

int show(const std::string& name) {
  auto cfg = lab::load_gpu_config(name);
  if (!cfg) return report_error(cfg.error());
  const timing::GpuConfig& c = **cfg;
  std::cout << c.name << ": " << c.description << "\n(" << c.source << ")\n";
  std::string section;
  auto fields = timing::describe_config(c);
  size_t wk = 0, wv = 0, wu = 0;
  for (const auto& f : fields) {
    wk = std::max(wk, f.key.size());
    if (f.value.size() <= 16) wv = std::max(wv, f.value.size());  // long strings overflow
    wu = std::max(wu, f.unit.size());
  }
  for (const auto& f : fields) {
    if (f.section != section) std::cout << "\n[" << (section = f.section) << "]\n";
    std::cout << "  " << f.key << std::string(wk + 2 - f.key.size(), ' ')
              << std::string(wv - std::min(wv, f.value.size()), ' ') << f.value << " " << f.unit
              << std::string(wu + 2 - f.unit.size(), ' ') << f.description << "\n";
  }
  return kExitOk;
}

int from_gpu(const std::string& out_path) {
  auto g = gpu::Backend::open();
  if (!g) return report_error(Error{"", 0, "--from-gpu: no GPU: " + g.error().message});
  const std::string text = lab::preset_from_device(g->device());
  {
    std::ofstream out(out_path, std::ios::trunc);
    if (!out || !(out << text)) return report_error(Error{out_path, 0, "cannot write the preset"});
  }
  auto check = lab::load_gpu_config(out_path);  // the file must load as --config OUT
  if (!check) return report_error(check.error());
  std::cout << gpu::describe(g->device()) << "wrote " << out_path << " (preset '" << (*check)->name
            << "', use it with --config " << out_path << ")\n";
  return kExitOk;
}

}  // namespace

Command add_configs_command(CLI::App& app) {
  auto args = std::make_shared<ConfigsArgs>();
  CLI::App* sub = app.add_subcommand(
      "configs", "List the timing model's GPU presets, show one, or derive one from this GPU");
  sub->add_option("--from-gpu", args->from_gpu,
                  "Write a preset derived from the GPU in this machine to this .toml file");
  args->show = sub->add_subcommand("show", "Print every field of a preset with its unit");
  args->show->add_option("name", args->show_name, "Preset name or .toml file")->required();
  return {sub, [args] {
            if (!args->from_gpu.empty()) return from_gpu(args->from_gpu);
            if (args->show->parsed()) return show(args->show_name);
            return list();
          }};
}

}  // namespace warplab::cli
