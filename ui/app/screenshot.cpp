#include "ui/app/screenshot.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace warplab::app {

bool write_framebuffer_png(const std::string& path, int width, int height, std::string& error) {
  if (width <= 0 || height <= 0) {
    error = "empty framebuffer";
    return false;
  }
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  if (glGetError() != GL_NO_ERROR) {
    error = "glReadPixels failed";
    return false;
  }
  // GL's rows run bottom-up; PNG's top-down.
  const size_t stride = static_cast<size_t>(width) * 4;
  std::vector<unsigned char> flipped(pixels.size());
  for (int y = 0; y < height; ++y)
    std::copy_n(pixels.data() + (height - 1 - y) * stride, stride, flipped.data() + y * stride);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque
  if (!stbi_write_png(path.c_str(), width, height, 4, flipped.data(), static_cast<int>(stride))) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace warplab::app
