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
  // GL's rows run bottom-up; PNG's top-down. RGB without the alpha (the window is opaque): a
  // quarter less to compress (stb's deflate is most of a scripted visit's screenshot time).
  const size_t in_stride = static_cast<size_t>(width) * 4, stride = static_cast<size_t>(width) * 3;
  std::vector<unsigned char> flipped(stride * static_cast<size_t>(height));
  for (int y = 0; y < height; ++y) {
    const unsigned char* from = pixels.data() + (height - 1 - y) * in_stride;
    unsigned char* to = flipped.data() + y * stride;
    for (int x = 0; x < width; ++x) std::copy_n(from + 4 * x, 3, to + 3 * x);
  }
  if (!stbi_write_png(path.c_str(), width, height, 3, flipped.data(), static_cast<int>(stride))) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace warplab::app
