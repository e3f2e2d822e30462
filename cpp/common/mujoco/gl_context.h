// Headless OpenGL contexts for MuJoCo's renderer: the GL context that Gymnasium's
// MujocoRenderer gets from mujoco.egl / mujoco.osmesa, made here in C++ on the pool's worker
// threads, one per thread.
//
// The backend is MUJOCO_GL's, read as Gymnasium reads it: "egl" (headless EGL on a device
// display: a GPU, or Mesa's llvmpipe where there is none) or "osmesa" (Mesa's off-screen
// software renderer); unset means EGL, then OSMesa if EGL cannot be loaded. "glfw" needs a
// window system, which worker threads have no use for, so it is refused with the valid
// values named, as is anything else.
//
// Neither library is linked: they are dlopen()ed on the first render, so the module builds and
// imports where they are missing and only rendering fails, naming the package to install
// (Debian/Ubuntu: libegl1 and libgl1-mesa-dri for EGL, libosmesa6 for OSMesa). They are
// opened with RTLD_GLOBAL on purpose: mjr_makeContext finds its GL entry points through
// eglGetProcAddress or OSMesaGetProcAddress looked up in the process's global symbol table
// (MuJoCo's glad loader, src/render/classic/glad/glad.c); failing that, it looks for a loaded
// library *named* libEGL.so*, libOSMesa.so* or libGL.so*. EnvPool 1.2.5 bundles libEGL under
// auditwheel's mangled name (libEGL-48f73270.so.1.1.0) and links it locally, so neither lookup
// finds it and mjr_makeContext fails with "an OpenGL platform library has not been loaded"
// unless the user preloads libEGL globally. MuJoCo resolves the entry points once per process
// (a static in mjGladLoadGL), so one process renders through one backend; the backend is fixed
// by the first context made.
//
// The EGL and OSMesa declarations below are the few ABI types and constants of the Khronos and
// Mesa headers that we use, so that no GL headers are needed to build.
#ifndef ENVFLEET_COMMON_MUJOCO_GL_CONTEXT_H_
#define ENVFLEET_COMMON_MUJOCO_GL_CONTEXT_H_

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace envfleet {
namespace mujoco {
namespace gl {

enum class Backend { kEgl, kOsmesa };

inline const char* BackendName(Backend backend) {
  return backend == Backend::kEgl ? "egl" : "osmesa";
}

// ---- EGL (EGL 1.5 and EGL_EXT_device_enumeration / EGL_EXT_platform_device) ----------------

using EGLBoolean = unsigned int;
using EGLenum = unsigned int;
using EGLint = int32_t;
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;

constexpr EGLint kEglSuccess = 0x3000;
constexpr EGLint kEglNone = 0x3038;
constexpr EGLenum kEglOpenGlApi = 0x30A2;
constexpr EGLenum kEglPlatformDeviceExt = 0x313F;

struct EglApi {
  void* (*GetProcAddress)(const char*);
  EGLint (*GetError)();
  EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*);
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*);
  EGLBoolean (*BindAPI)(EGLenum);
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*);
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext);
  EGLBoolean (*ReleaseThread)();
  // Extensions, found through eglGetProcAddress.
  EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT*, EGLint*);
  EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void*, const EGLint*);
};

// ---- OSMesa (Mesa's GL/osmesa.h) ---------------------------------------------------------------

using OSMesaContext = void*;
constexpr unsigned int kOsmesaRgba = 0x1908;  // OSMESA_RGBA == GL_RGBA
constexpr unsigned int kGlFloat = 0x1406;     // GL_FLOAT

struct OsmesaApi {
  OSMesaContext (*CreateContextExt)(unsigned int format, int depth_bits, int stencil_bits,
                                    int accum_bits, OSMesaContext sharelist);
  unsigned char (*MakeCurrent)(OSMesaContext, void* buffer, unsigned int type, int width,
                               int height);
  void (*DestroyContext)(OSMesaContext);
  void* (*GetProcAddress)(const char*);
};

// ---- Loading ------------------------------------------------------------------------------------

inline std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown error";
}

// Opens the first library of `names` that loads, globally (see the top comment); never
// closed: MuJoCo keeps pointers into it for the life of the process.
inline void* OpenGlobal(const std::vector<const char*>& names, std::string* error) {
  for (const char* name : names) {
    if (void* handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) return handle;
    *error += std::string(error->empty() ? "" : "; ") + DlError();
  }
  return nullptr;
}

template <typename F>
bool Resolve(void* handle, const char* name, F* fn) {
  *fn = reinterpret_cast<F>(dlsym(handle, name));
  return *fn != nullptr;
}

// The result of loading a backend: its entry points or why it is unusable (kept, so each
// later render reports the same reason without retrying).
struct EglLoad {
  EglApi api{};
  EGLDisplay display = nullptr;  // the default display (MUJOCO_EGL_DEVICE_ID's, else the first)
  std::vector<EGLDeviceEXT> devices;  // every EGL device, in EGL's order
  std::string error;
};

inline const char* kEglPackages = "libegl1 libgl1-mesa-dri";
inline const char* kOsmesaPackages = "libosmesa6";

inline EglLoad LoadEglOnce() {
  EglLoad load;
  std::string dl_error;
  void* lib = OpenGlobal({"libEGL.so.1", "libEGL.so"}, &dl_error);
  if (lib == nullptr) {
    load.error = "could not load libEGL.so.1 (" + dl_error +
                 "); install it (Debian/Ubuntu: apt-get install " + kEglPackages + ")";
    return load;
  }
  EglApi& a = load.api;
  const bool core =
      Resolve(lib, "eglGetProcAddress", &a.GetProcAddress) &&
      Resolve(lib, "eglGetError", &a.GetError) && Resolve(lib, "eglInitialize", &a.Initialize) &&
      Resolve(lib, "eglChooseConfig", &a.ChooseConfig) && Resolve(lib, "eglBindAPI", &a.BindAPI) &&
      Resolve(lib, "eglCreateContext", &a.CreateContext) &&
      Resolve(lib, "eglMakeCurrent", &a.MakeCurrent) &&
      Resolve(lib, "eglDestroyContext", &a.DestroyContext) &&
      Resolve(lib, "eglReleaseThread", &a.ReleaseThread);
  if (!core) {
    load.error = "libEGL.so.1 lacks EGL 1.4 entry points (" + DlError() + ")";
    return load;
  }
  a.QueryDevicesEXT =
      reinterpret_cast<decltype(a.QueryDevicesEXT)>(a.GetProcAddress("eglQueryDevicesEXT"));
  a.GetPlatformDisplayEXT = reinterpret_cast<decltype(a.GetPlatformDisplayEXT)>(
      a.GetProcAddress("eglGetPlatformDisplayEXT"));
  if (a.QueryDevicesEXT == nullptr || a.GetPlatformDisplayEXT == nullptr) {
    load.error =
        "libEGL has no EGL_EXT_device_enumeration / EGL_EXT_platform_device, which headless "
        "rendering needs (install Mesa's EGL: apt-get install " +
        std::string(kEglPackages) + ")";
    return load;
  }

  // The display, as mujoco.egl picks it: the EGL devices in their native order (or only the
  // one MUJOCO_EGL_DEVICE_ID names, an index into that order), the first that initializes.
  // Made once per process and never terminated: every worker thread's context lives on it.
  EGLDeviceEXT devices[16];
  EGLint num_devices = 0;
  if (!a.QueryDevicesEXT(16, devices, &num_devices) || num_devices < 1) {
    load.error =
        "EGL found no device (eglQueryDevicesEXT); for software rendering install "
        "Mesa: apt-get install " +
        std::string(kEglPackages);
    return load;
  }
  load.devices.assign(devices, devices + num_devices);
  int first = 0, last = num_devices - 1;
  if (const char* id = std::getenv("MUJOCO_EGL_DEVICE_ID")) {
    char* end = nullptr;
    const long index = std::strtol(id, &end, 10);
    if (end == id || *end != '\0' || index < 0 || index >= num_devices) {
      load.error = "MUJOCO_EGL_DEVICE_ID must be an integer between 0 and " +
                   std::to_string(num_devices - 1) + " (inclusive), got '" + id + "'";
      return load;
    }
    first = last = static_cast<int>(index);
  }
  for (int i = first; i <= last && load.display == nullptr; ++i) {
    EGLDisplay display = a.GetPlatformDisplayEXT(kEglPlatformDeviceExt, devices[i], nullptr);
    if (display == nullptr || a.GetError() != kEglSuccess) continue;
    if (a.Initialize(display, nullptr, nullptr) && a.GetError() == kEglSuccess) {
      load.display = display;
    }
  }
  if (load.display == nullptr) {
    load.error = "no EGL device display could be initialized (" + std::to_string(num_devices) +
                 " devices found)";
  }
  return load;
}

struct OsmesaLoad {
  OsmesaApi api{};
  std::string error;
};

inline OsmesaLoad LoadOsmesaOnce() {
  OsmesaLoad load;
  std::string dl_error;
  void* lib = OpenGlobal({"libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so"}, &dl_error);
  if (lib == nullptr) {
    load.error = "could not load libOSMesa (" + dl_error +
                 "); install it (Debian/Ubuntu: apt-get install " + kOsmesaPackages + ")";
    return load;
  }
  OsmesaApi& a = load.api;
  if (!(Resolve(lib, "OSMesaCreateContextExt", &a.CreateContextExt) &&
        Resolve(lib, "OSMesaMakeCurrent", &a.MakeCurrent) &&
        Resolve(lib, "OSMesaDestroyContext", &a.DestroyContext) &&
        Resolve(lib, "OSMesaGetProcAddress", &a.GetProcAddress))) {
    load.error = "libOSMesa lacks OSMesaCreateContextExt (" + DlError() + ")";
  }
  return load;
}

inline const EglLoad& Egl() {
  static const EglLoad load = LoadEglOnce();  // thread-safe: a function-local static
  return load;
}

inline const OsmesaLoad& Osmesa() {
  static const OsmesaLoad load = LoadOsmesaOnce();
  return load;
}

// The backend this process renders with, chosen on the first call from MUJOCO_GL (see the top
// comment) and kept: MuJoCo binds its GL entry points to one platform library per process.
inline Backend ProcessBackend() {
  static const Backend backend = [] {
    const char* value = std::getenv("MUJOCO_GL");
    const std::string name = value != nullptr ? value : "";
    if (name == "egl") return Backend::kEgl;
    if (name == "osmesa") return Backend::kOsmesa;
    if (!name.empty()) {
      throw std::runtime_error(
          "MUJOCO_GL must be 'egl' or 'osmesa' for envfleet's headless rendering (or unset: "
          "EGL, else OSMesa), got '" +
          name + "'");
    }
    if (Egl().error.empty()) return Backend::kEgl;
    if (Osmesa().error.empty()) return Backend::kOsmesa;
    throw std::runtime_error("MuJoCo rendering needs EGL or OSMesa, and neither works: EGL: " +
                             Egl().error + ". OSMesa: " + Osmesa().error);
  }();
  return backend;
}

// ---- One context ------------------------------------------------------------------------------

// The display of EGL device `device` (an index into EGL's device list, as MUJOCO_EGL_DEVICE_ID
// is), or the default display for -1: a pool's render_device option. Each is initialized on
// first use and kept for the process's life, like the default one.
inline EGLDisplay EglDeviceDisplay(int device) {
  const EglLoad& egl = Egl();
  if (!egl.error.empty()) {
    throw std::runtime_error("MuJoCo rendering with MUJOCO_GL=egl: " + egl.error);
  }
  if (device < 0) return egl.display;
  const int count = static_cast<int>(egl.devices.size());
  if (device >= count) {
    throw std::invalid_argument("render_device " + std::to_string(device) +
                                " is out of range: EGL has " + std::to_string(count) +
                                " device(s) here (valid: -1 for the default, or 0.." +
                                std::to_string(count - 1) + ")");
  }
  static std::mutex mutex;
  static std::vector<EGLDisplay> displays;
  std::lock_guard<std::mutex> lock(mutex);
  displays.resize(egl.devices.size(), nullptr);
  if (displays[device] == nullptr) {
    EGLDisplay display =
        egl.api.GetPlatformDisplayEXT(kEglPlatformDeviceExt, egl.devices[device], nullptr);
    if (display == nullptr || !egl.api.Initialize(display, nullptr, nullptr)) {
      throw std::runtime_error("EGL device " + std::to_string(device) +
                               " could not be initialized (render_device)");
    }
    displays[device] = display;
  }
  return displays[device];
}

// An OpenGL entry point of the process's backend (core functions too: Mesa's and NVIDIA's EGL
// return them, EGL_KHR_get_all_proc_addresses), or nullptr. Valid in any context of that backend.
inline void* GlProc(const char* name) {
  return ProcessBackend() == Backend::kEgl ? Egl().api.GetProcAddress(name)
                                           : Osmesa().api.GetProcAddress(name);
}

// A GL context made current on the thread that creates it, for that thread's life: the
// worker's context. It must be destroyed on the same thread.
class HeadlessContext {
 public:
  // `width` x `height`: the largest frame it will draw (OSMesa's default framebuffer; MuJoCo
  // draws into its own offscreen framebuffer, so this only mirrors mujoco.osmesa).
  // `device`: the EGL device (EglDeviceDisplay), -1 for the default; OSMesa has none.
  HeadlessContext(int width, int height, int device = -1) : backend_(ProcessBackend()) {
    if (backend_ == Backend::kEgl) {
      display_ = EglDeviceDisplay(device);
      MakeEgl();
    } else {
      if (device >= 0) {
        throw std::invalid_argument(
            "render_device selects an EGL device, but this process renders with OSMesa "
            "(MUJOCO_GL=osmesa): leave render_device at -1");
      }
      MakeOsmesa(width, height);
    }
  }
  ~HeadlessContext() {
    if (backend_ == Backend::kEgl) {
      const EglLoad& egl = Egl();
      egl.api.MakeCurrent(display_, nullptr, nullptr, nullptr);
      egl.api.DestroyContext(display_, context_);
      egl.api.ReleaseThread();  // the thread's EGL state, so that ended workers leak nothing
    } else {
      Osmesa().api.MakeCurrent(nullptr, nullptr, kGlFloat, 0, 0);
      Osmesa().api.DestroyContext(context_);
    }
  }
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  Backend backend() const { return backend_; }

  // OSMesa: a bigger default framebuffer for bigger frames, as mujoco.osmesa sizes it.
  void Reserve(int width, int height) {
    if (backend_ != Backend::kOsmesa || (width <= width_ && height <= height_)) return;
    MakeOsmesaCurrent(width, height);
  }

 private:
  void MakeEgl() {
    const EglLoad& egl = Egl();
    if (!egl.error.empty()) {
      throw std::runtime_error("MuJoCo rendering with MUJOCO_GL=egl: " + egl.error);
    }
    // mujoco.egl's framebuffer attributes: RGBA8, 24-bit depth, 8-bit stencil, pbuffer
    // surfaces, desktop OpenGL. No surface is made: the context is made current surfaceless
    // and MuJoCo draws into its own framebuffer object.
    const EGLint attributes[] = {0x3024,  8,       // EGL_RED_SIZE
                                 0x3023,  8,       // EGL_GREEN_SIZE
                                 0x3022,  8,       // EGL_BLUE_SIZE
                                 0x3021,  8,       // EGL_ALPHA_SIZE
                                 0x3025,  24,      // EGL_DEPTH_SIZE
                                 0x3026,  8,       // EGL_STENCIL_SIZE
                                 0x303F,  0x308E,  // EGL_COLOR_BUFFER_TYPE: EGL_RGB_BUFFER
                                 0x3033,  0x0001,  // EGL_SURFACE_TYPE: EGL_PBUFFER_BIT
                                 0x3040,  0x0008,  // EGL_RENDERABLE_TYPE: EGL_OPENGL_BIT
                                 kEglNone};
    EGLConfig config = nullptr;
    EGLint num_configs = 0;
    if (!egl.api.ChooseConfig(display_, attributes, &config, 1, &num_configs) || num_configs < 1) {
      throw std::runtime_error("EGL found no RGBA8/depth24/stencil8 OpenGL configuration");
    }
    if (!egl.api.BindAPI(kEglOpenGlApi)) {
      throw std::runtime_error("EGL cannot bind the OpenGL API (eglBindAPI)");
    }
    context_ = egl.api.CreateContext(display_, config, nullptr, nullptr);
    if (context_ == nullptr) {
      throw std::runtime_error("eglCreateContext failed, EGL error 0x" + Hex(egl.api.GetError()));
    }
    if (!egl.api.MakeCurrent(display_, nullptr, nullptr, context_)) {
      const EGLint error = egl.api.GetError();
      egl.api.DestroyContext(display_, context_);
      throw std::runtime_error("eglMakeCurrent failed, EGL error 0x" + Hex(error));
    }
  }

  void MakeOsmesa(int width, int height) {
    const OsmesaLoad& osmesa = Osmesa();
    if (!osmesa.error.empty()) {
      throw std::runtime_error("MuJoCo rendering with MUJOCO_GL=osmesa: " + osmesa.error);
    }
    // mujoco.osmesa's context: RGBA, 24-bit depth, 8-bit stencil, no accumulation buffer.
    context_ = osmesa.api.CreateContextExt(kOsmesaRgba, 24, 8, 0, nullptr);
    if (context_ == nullptr) throw std::runtime_error("OSMesaCreateContextExt failed");
    try {
      MakeOsmesaCurrent(width, height);
    } catch (...) {
      osmesa.api.DestroyContext(context_);
      throw;
    }
  }

  // mujoco.osmesa binds a float RGBA buffer of the frame size.
  void MakeOsmesaCurrent(int width, int height) {
    std::vector<float> buffer(static_cast<size_t>(width) * height * 4, 0.0f);
    if (!Osmesa().api.MakeCurrent(context_, buffer.data(), kGlFloat, width, height)) {
      throw std::runtime_error("OSMesaMakeCurrent failed");
    }
    buffer_ = std::move(buffer);
    width_ = width;
    height_ = height;
  }

  static std::string Hex(EGLint value) {
    char text[16];
    std::snprintf(text, sizeof(text), "%x", static_cast<unsigned>(value));
    return text;
  }

  Backend backend_;
  EGLDisplay display_ = nullptr;  // EGL: the device's display
  void* context_ = nullptr;
  std::vector<float> buffer_;  // OSMesa's default framebuffer
  int width_ = 0, height_ = 0;
};

}  // namespace gl
}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_GL_CONTEXT_H_
