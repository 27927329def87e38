// Recursion: how a device function calls itself when each function has one set of registers.
//
// On the GPU a call follows the ABI of the compiled SASS: arguments and return values travel in
// registers, and a function saves the registers it will overwrite on the thread's stack in local
// memory (STL on entry, LDL before returning), moving the stack pointer by its frame size. So a
// recursive function needs a stack as deep as the recursion; the stack has cudaLimitStackSize
// bytes per thread (1 KB by default; ptxas warns that it "cannot be statically determined" for a
// recursive kernel) and a deeper recursion overflows it.
//
// WarpLab gives each PTX function one fixed range of register slots and per-lane .param bytes
// (decoded.h). A call that may enter a function that is already running below it on the warp's
// call stack (CallSite::recursive, found at load) first saves the callee's frame, its registers,
// predicates and .param bytes, as a SavedFrame; each lane that returns from that call takes its
// return values and gets its own part of the frame back. Lanes that exit inside the call drop
// theirs. Frames nest exactly like the SIMT stack's call entries (simt_stack.h): a pre-Volta
// stack runs a call to its end before anything below it resumes.
// Modelled: direct and mutual recursion, divergent returns, exits inside a recursive call.
// Simplified: no stack traffic (the timing model sees only the call and the return); a recursive
// function may not keep .local memory (its one fixed frame would be shared by every activation:
// refused at load); the depth limit is WarpLab's (frames per warp), not the GPU's stack bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warplab::func {

struct Warp;
struct DecodedKernel;
struct CallSite;

class CallFrames {
 public:
  // Nested recursive calls a warp may have in flight, and the bytes their saved frames may take.
  static constexpr size_t kMaxDepth = 1024;
  static constexpr size_t kMaxBytes = size_t{64} << 20;

  void clear() { frames_.clear(), bytes_ = 0; }
  size_t depth() const { return frames_.size(); }
  // False (nothing saved) when saving the frame of k.funcs[func] would pass kMaxDepth or kMaxBytes.
  bool fits(const DecodedKernel& k, int32_t func) const;
  // `lanes` of `w` make a recursive call of k.funcs[func]: save its frame (all 32 lanes' columns;
  // only `lanes` get theirs back).
  void save(const DecodedKernel& k, int32_t func, const Warp& w, uint32_t lanes);
  // `lanes` return from the innermost recursive call `cs`: its return values go to the caller's
  // call-scope .param slots, and the lanes' part of the saved frame is restored around them.
  void ret(const DecodedKernel& k, const CallSite& cs, Warp& w, uint32_t lanes);
  // `lanes` exited: no frame waits for them any more.
  void exited(uint32_t lanes);
  // The same saved frames, byte for byte (the livelock watch compares warp states, cta_impl.h).
  bool operator==(const CallFrames& o) const { return frames_ == o.frames_; }

 private:
  struct SavedFrame {
    int32_t func = -1;            // index into DecodedKernel::funcs
    uint32_t pending = 0;         // lanes that have not returned from the call yet
    std::vector<uint64_t> regs;   // reg_count * 32, as in Warp::R
    std::vector<uint32_t> preds;  // pred_count lane masks
    std::vector<uint8_t> params;  // 32 lanes * (area_end - area_begin)
    bool operator==(const SavedFrame&) const = default;
  };
  static size_t frame_bytes(const DecodedKernel& k, int32_t func);
  void pop_done();
  std::vector<SavedFrame> frames_;
  size_t bytes_ = 0;
};

}  // namespace warplab::func
