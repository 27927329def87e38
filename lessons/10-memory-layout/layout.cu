// Lesson 10: memory layout. The same computation on particles stored as an array of structs (AoS)
// and as a struct of arrays (SoA), and with vectorised (float4) loads.
//
// Each particle has 8 floats (32 bytes). The kernels compute its kinetic energy
// e = m (vx^2 + vy^2 + vz^2) / 2, which needs only 4 of the 8 fields.
//   AoS: particle i is bytes [32 i, 32 i + 32). Lane l's vx is 32 bytes from lane l+1's, so one
//   warp
//        load of vx touches 32 sectors, and the warp's 4 loads (vx, vy, vz, m) request 128 sectors
//        for 512 useful bytes. Every particle's whole 32-byte sector comes from DRAM, half of it
//        (x, y, z, q) unused.
//   SoA: each field is its own array. A warp load of vx is 32 consecutive floats: 4 sectors, all
//        used. The 4 loads request 16 sectors, and only the 4 needed fields come from DRAM.

struct Particle {  // 32 bytes, aligned to 4 (a float): the compiler must load field by field
  float x, y, z;
  float vx, vy, vz;
  float m, q;
};

// The same 32 bytes, declared as two float4 so that the compiler may load 16 bytes at once.
struct __align__(16) ParticleV {
  float4 pos_vx;  // x, y, z, vx
  float4 vel_mq;  // vy, vz, m, q
};

extern "C" __global__ void kinetic_aos(const Particle* p, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float vx = p[i].vx, vy = p[i].vy, vz = p[i].vz, m = p[i].m;  // 4 loads, 32 sectors each
    e[i] = 0.5f * m * (vx * vx + vy * vy + vz * vz);
  }
}

extern "C" __global__ void kinetic_soa(const float* vx, const float* vy, const float* vz,
                                       const float* m, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = vx[i], b = vy[i], c = vz[i], mass = m[i];  // 4 loads, 4 sectors each
    e[i] = 0.5f * mass * (a * a + b * b + c * c);
  }
}

// AoS read with two 16-byte loads per particle: 2 requests instead of 4. The lanes are still 32
// bytes apart, so each request still touches 32 sectors (64 per warp instead of 128), using half
// of each; the other half is the other request's.
extern "C" __global__ void kinetic_aos_vec(const ParticleV* p, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 a = p[i].pos_vx, b = p[i].vel_mq;
    e[i] = 0.5f * b.z * (a.w * a.w + b.x * b.x + b.y * b.y);
  }
}
