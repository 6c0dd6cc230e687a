/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/gpu_uuid.c — cuCtxGetDevice + cuDeviceGetUuid(_v2) from
 * libcuda.so.1, or hipGetDevice + hipDeviceGetUuid from libamdhip64.
 */
#include "gpu_uuid.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  unsigned char bytes[16];
} uuid16;

typedef int (*cu_ctx_get_device_fn)(int *device);
typedef int (*cu_device_get_uuid_fn)(uuid16 *uuid, int device);
typedef int (*hip_get_device_fn)(int *device);
typedef int (*hip_device_get_uuid_fn)(uuid16 *uuid, int device);

static void format_uuid(const uuid16 *u, const char *prefix, char *out,
                        size_t outlen) {
  const unsigned char *b = u->bytes;
  snprintf(out, outlen,
           "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x"
           "%02x",
           prefix, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
           b[10], b[11], b[12], b[13], b[14], b[15]);
}

static int from_cuda(char *out, size_t outlen, int *device) {
  void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib)
    return 0;
  int found = 0;
  cu_ctx_get_device_fn get_dev =
      (cu_ctx_get_device_fn)dlsym(lib, "cuCtxGetDevice");
  cu_device_get_uuid_fn get_uuid =
      (cu_device_get_uuid_fn)dlsym(lib, "cuDeviceGetUuid_v2");
  if (!get_uuid)
    get_uuid = (cu_device_get_uuid_fn)dlsym(lib, "cuDeviceGetUuid");
  int dev = -1;
  uuid16 u;
  if (get_dev && get_uuid && get_dev(&dev) == 0 && dev >= 0 &&
      get_uuid(&u, dev) == 0) {
    format_uuid(&u, "GPU-", out, outlen);
    *device = dev;
    found = 1;
  }
  dlclose(lib);
  return found;
}

static int from_hip(char *out, size_t outlen, int *device) {
  void *lib = dlopen("libamdhip64.so", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib)
    lib = dlopen("libamdhip64.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib)
    lib = dlopen("libamdhip64.so.5", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib)
    return 0;
  int found = 0;
  hip_get_device_fn get_dev = (hip_get_device_fn)dlsym(lib, "hipGetDevice");
  hip_device_get_uuid_fn get_uuid =
      (hip_device_get_uuid_fn)dlsym(lib, "hipDeviceGetUuid");
  int dev = -1;
  uuid16 u;
  if (get_dev && get_uuid && get_dev(&dev) == 0 && dev >= 0 &&
      get_uuid(&u, dev) == 0) {
    format_uuid(&u, "GPU-", out, outlen);
    *device = dev;
    found = 1;
  }
  dlclose(lib);
  return found;
}

void cs_gpu_uuid_current(char *out, size_t outlen, int *device) {
  *device = -1;
  if (outlen == 0)
    return;
  out[0] = '\0';
  if (!from_cuda(out, outlen, device))
    from_hip(out, outlen, device);
}
