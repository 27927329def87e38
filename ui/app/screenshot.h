// Reads the current GL framebuffer back and writes it as a PNG (the headless self-check).
#pragma once

#include <string>

namespace warplab::app {

// Reads width x height pixels of the back buffer; false with `error` set on failure.
bool write_framebuffer_png(const std::string& path, int width, int height, std::string& error);

}  // namespace warplab::app
